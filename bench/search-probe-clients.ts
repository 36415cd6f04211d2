// The outside probe's clients of issue 49, in a process apart from Kura: `clients` strangers, each
// from its own address (X-Forwarded-For; Kura trusts loopback), sending back to back the
// multi-search that stalled the api (20 queries sorting everything, `"q":""`, `"sort":
// ["length:desc"]`, a new highlightPreTag each time so no cache answers), and one more asking
// /healthz every 20 ms. argv: a JSON file {url, clients, seconds}. Prints one JSON line with each
// route's answers by status and latency percentiles (ms). argv[3] `health` runs only the /healthz
// asker, `strangers` only the strangers: the bench runs each in a process of its own, so a health
// check is not timed by a loop busy receiving the strangers' answers (72 MB/s at a million records).
import { readFileSync } from 'node:fs';

const { url, clients, seconds } = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as { url: string; clients: number; seconds: number };
const until = Date.now() + seconds * 1000;
const latencies = { healthz: [] as number[], search: [] as number[] };
const statuses = { healthz: {} as Record<number, number>, search: {} as Record<number, number> };

async function timed(route: keyof typeof latencies, request: () => Promise<Response>): Promise<void> {
  const started = performance.now();
  const response = await request();
  await response.arrayBuffer();
  latencies[route].push(performance.now() - started);
  statuses[route][response.status] = (statuses[route][response.status] ?? 0) + 1;
}

async function stranger(address: string): Promise<void> {
  const access = (await (await fetch(`${url}/api/search`, { headers: { 'x-forwarded-for': address } })).json()) as { apiKey: string; index: string };
  while (Date.now() < until) {
    const tag = `<em-${Math.random().toString(36).slice(2)}>`;
    const queries = Array.from({ length: 20 }, () => ({
      indexUid: access.index,
      q: '',
      sort: ['length:desc'],
      highlightPreTag: tag,
      attributesToHighlight: ['*'],
    }));
    await timed('search', () =>
      fetch(`${url}/api/search-engine/multi-search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access.apiKey}`, 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify({ queries }),
      }),
    );
  }
}

async function health(): Promise<void> {
  while (Date.now() < until) {
    await timed('healthz', () => fetch(`${url}/healthz`));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const percentile = (sorted: number[], p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN);
const only = process.argv[3] as 'health' | 'strangers' | undefined;
const askers = [
  ...(only === 'strangers' ? [] : [health()]),
  ...(only === 'health' ? [] : Array.from({ length: clients }, (_, i) => stranger(`198.51.100.${i + 1}`))),
];
await Promise.all(askers);
const routes = only === 'health' ? (['healthz'] as const) : only === 'strangers' ? (['search'] as const) : (['healthz', 'search'] as const);
const summary = Object.fromEntries(
  routes.map((route) => {
    const sorted = latencies[route].sort((a, b) => a - b);
    return [route, { answers: statuses[route], p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: Math.round(sorted.at(-1) ?? NaN) }];
  }),
);
console.log(JSON.stringify(summary));
