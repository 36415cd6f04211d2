// Decisions: docs/decisions/0032-capture-targets-and-floors.md
// The least a recorder written in node can do (bench/capture section "floor"): poll a live media
// playlist every target duration from its first listed segment, fetch each new segment over one
// keep-alive connection, append it to the part file (writev) and fdatasync it, until #EXT-X-ENDLIST.
// No parsing library, no resume: a lower bound on Kura's recording, not a recorder. With
// DATABASE_URL it also does the least that resuming after a SIGKILL needs (issue 19 keeps that
// proven): after each fdatasync, one row saying the segment is on disk (sequence, end offset),
// committed before the next segment, over one connection.
// Usage: node dist/bench/capture/floor-recorder.js PLAYLIST_URL PART_FILE [DATABASE_URL]
// Writes PART_FILE.json: {"loopCpuSeconds": …, "segments": …} (CPU from the first request on).
import { open, writeFile } from 'node:fs/promises';
import http from 'node:http';
import pg from 'pg';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string): Promise<{ status: number; body: Buffer[] }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        const body: Buffer[] = [];
        response.on('data', (chunk: Buffer) => body.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

async function main(): Promise<void> {
  const [playlistUrl, output, databaseUrl] = process.argv.slice(2) as [string, string, string | undefined];
  const file = await open(output, 'w');
  const db = databaseUrl === undefined ? null : new pg.Client({ connectionString: databaseUrl });
  await db?.connect();
  await db?.query('create table floor_segments (sequence bigint primary key, end_offset bigint not null)');
  let offset = 0;
  const before = process.cpuUsage();
  let next: number | null = null;
  let segments = 0;
  for (;;) {
    const { status, body } = await get(playlistUrl);
    if (status !== 200) throw new Error(`${playlistUrl} answered ${status}`);
    const lines = Buffer.concat(body).toString().split('\n');
    const first = Number(lines.find((l) => l.startsWith('#EXT-X-MEDIA-SEQUENCE:'))?.slice(22) ?? 0);
    const uris = lines.filter((l) => l !== '' && !l.startsWith('#'));
    next ??= first;
    for (let i = Math.max(0, next - first); i < uris.length; i++) {
      const segment = await get(new URL(uris[i] as string, playlistUrl).toString());
      if (segment.status !== 200) throw new Error(`segment ${first + i} answered ${segment.status}`);
      const { bytesWritten } = await file.writev(segment.body);
      await file.datasync();
      offset += bytesWritten;
      await db?.query('insert into floor_segments (sequence, end_offset) values ($1, $2)', [first + i, offset]);
      segments += 1;
    }
    next = first + uris.length;
    if (lines.includes('#EXT-X-ENDLIST')) break;
    const target = Number(lines.find((l) => l.startsWith('#EXT-X-TARGETDURATION:'))?.slice(22) ?? 1);
    await new Promise((resolve) => setTimeout(resolve, target * 1000));
  }
  await file.close();
  await db?.end();
  const used = process.cpuUsage(before);
  await writeFile(`${output}.json`, JSON.stringify({ loopCpuSeconds: (used.user + used.system) / 1e6, segments }));
  agent.destroy();
}

await main();
