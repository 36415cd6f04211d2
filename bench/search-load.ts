// Drives autocannon (in its own process, apart from Kura) through a list of request paths, each
// connection cycling through them; with `shared`, all connections take the next path of one
// sequence, so no path is asked twice until the list is spent.
// argv: the path of a JSON file {url, paths, headers, connections, duration, shared?}.
// Prints one JSON line {rps, p50, p97_5, p99, non2xx, errors}.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const autocannon = createRequire(import.meta.url)('autocannon') as (options: object) => Promise<{
  requests: { average: number };
  latency: { p50: number; p97_5: number; p99: number };
  non2xx: number;
  errors: number;
}>;

const { url, paths, headers, connections, duration, shared } = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as {
  url: string;
  paths: string[];
  headers: Record<string, string>;
  connections: number;
  duration: number;
  shared?: boolean;
};
let next = 0;
const requests = shared
  ? [{ method: 'GET', headers, setupRequest: (request: object) => ({ ...request, path: paths[next++ % paths.length] }) }]
  : paths.map((path) => ({ method: 'GET', path, headers }));
await autocannon({ url, connections: Math.min(8, connections), duration: 2, requests }); // warm-up
const report = await autocannon({ url, connections, duration, requests });
console.log(
  JSON.stringify({
    rps: report.requests.average,
    p50: report.latency.p50,
    p97_5: report.latency.p97_5,
    p99: report.latency.p99,
    non2xx: report.non2xx,
    errors: report.errors,
  }),
);
