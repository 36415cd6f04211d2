// Kura as the bench drives it: `kura serve` processes, `kura archive` to queue, and what Kura
// exposes afterwards (its database rows, its stored archive, its /metrics). Nothing of Kura's
// internals is imported, so the bench runs unchanged against any version of the recording code.
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { spawnKura, type KuraProcess } from '../../test/support/cli.js';
import type { Mark } from './phases.js';

const CLI = path.join(readPackageInfo().root, 'dist', 'src', 'cli.js');
/** `eventLoopMonitoringPrecision` in src/http/metrics.ts: the gauge counts the sampling interval in. */
const EVENT_LOOP_SAMPLING_MS = 100;

export interface KuraServer {
  process: KuraProcess;
  pid: number;
  /** /metrics of the api (null for KURA_ROLE=worker). */
  metricsUrl: string | null;
  stop(): Promise<void>;
}

/** Starts `kura serve` (a worker, an api, or both by KURA_ROLE); resolves once it says it is ready. */
export async function startKura(env: Record<string, string>, cwd: string, profileDir: string | null): Promise<KuraServer> {
  const profiling = profileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const kura = spawnKura(['serve'], env, cwd, { nodeArgs: profiling });
  const role = env.KURA_ROLE ?? 'all';
  const listening = role === 'worker' ? null : await kura.waitForLog((line) => line.msg === 'kura api listening');
  if (role !== 'api') await kura.waitForLog((line) => line.msg === 'kura worker ready');
  return {
    process: kura,
    pid: kura.child.pid as number,
    metricsUrl: listening === null ? null : `${listening.url as string}/metrics`,
    stop: async () => {
      if (kura.child.exitCode === null && kura.child.signalCode === null) kura.child.kill('SIGTERM');
      await kura.exited;
    },
  };
}

/** Queues each URL with `kura archive` (a few at a time); resolves with the record ids, in order. */
export async function queueArchives(urls: string[], env: Record<string, string>, cwd: string, parallel = 4): Promise<string[]> {
  const ids: string[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const i = next++;
      const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'archive', urls[i] as string], {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
      });
      ids[i] = /kura: (\S+) is/.exec(stdout)?.[1] as string;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, urls.length) }, worker));
  return ids;
}

/**
 * Resolves once the archive is stored and the capture finalized (its last writes done), with the
 * time it saw that and the record's status.
 */
export async function waitStored(databaseUrl: string, id: string, timeoutMs: number): Promise<{ status: string; at: number }> {
  const reads = await openBenchReads(databaseUrl);
  try {
    return await reads.waitStored(id, timeoutMs);
  } finally {
    await reads.close();
  }
}

/** The bench's reads of Kura's database on one connection of its own, whose backend is `pid`. */
export interface BenchReads {
  pid: number;
  /** As `waitStored`, on this connection. */
  waitStored(id: string, timeoutMs: number): Promise<{ status: string; at: number }>;
  close(): Promise<void>;
}

/**
 * Opens the bench's connection to Kura's database: the single section opens it before it
 * measures and tells its backend apart, so PostgreSQL's work for the bench is not Kura's.
 */
export async function openBenchReads(databaseUrl: string): Promise<BenchReads> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('listen kura_livestreams_changed');
  const [row] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
  // one query at a time on the connection (pg only queues overlapping ones, with a warning)
  let last: Promise<unknown> = Promise.resolve();
  const serial = <T extends pg.QueryResultRow>(text: string, values: unknown[]) => {
    const next = last.then(() => client.query<T>(text, values));
    last = next.catch(() => undefined);
    return next;
  };
  const recordEnded = async (id: string) => {
    const { rows } = await serial<{ status: string }>('select status from livestreams where id = $1', [id]);
    const status = rows[0]?.status;
    return status === 'finished' || status === 'failed' ? status : null;
  };
  return {
    pid: row?.pid as number,
    async waitStored(id, timeoutMs) {
      let onChange = () => undefined;
      let timer: NodeJS.Timeout | undefined;
      const status = await new Promise<string>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`record ${id} did not end in ${timeoutMs} ms`)), timeoutMs);
        // a burst of notifications makes one check, and one more if any came during it
        let checking = false;
        let again = false;
        const check = async () => {
          checking = true;
          do {
            again = false;
            const ended = await recordEnded(id);
            if (ended !== null) resolve(ended);
          } while (again);
          checking = false;
        };
        onChange = () => {
          if (checking) again = true;
          else void check().catch(reject);
        };
        client.on('notification', onChange);
        onChange();
      }).finally(() => {
        clearTimeout(timer);
        client.off('notification', onChange);
      });
      // finalize deletes the chunks after marking the capture finalized: a moment more
      for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
        const { rows } = await serial<{ state: string }>('select state from captures where livestream_id = $1', [id]);
        if (rows[0] === undefined || rows[0].state === 'finalized') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { status, at: Date.now() };
    },
    close: () => client.end(),
  };
}

/** One query on a connection of its own. */
export async function query<T extends pg.QueryResultRow>(databaseUrl: string, text: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** When the capture began recording and ended (the captures row). */
export async function captureTimes(databaseUrl: string, id: string): Promise<{ startedAt: number; endedAt: number }> {
  const [row] = await query<{ started_at: Date; ended_at: Date }>(databaseUrl, 'select started_at, ended_at from captures where livestream_id = $1', [id]);
  if (row === undefined) throw new Error(`no capture row for ${id}`);
  return { startedAt: row.started_at.getTime(), endedAt: row.ended_at.getTime() };
}

/** When each record's capture began (its captures row), in ms; a record never captured has none. */
export async function captureStarts(databaseUrl: string, ids: string[]): Promise<number[]> {
  const rows = await query<{ started_at: Date }>(databaseUrl, 'select started_at from captures where livestream_id = any($1)', [ids]);
  return rows.map((r) => r.started_at.getTime());
}

/** The encoder log lines Kura wrote for a record, each with when it was written. */
export async function logLines(databaseUrl: string, id: string): Promise<Array<{ t: number; line: string }>> {
  const rows = await query<{ logged_at: Date; line: string }>(
    databaseUrl,
    'select logged_at, line from capture_log_lines where livestream_id = $1 order by id',
    [id],
  );
  return rows.map((r) => ({ t: r.logged_at.getTime(), line: r.line }));
}

/**
 * Marks from the finalize's log lines: ffmpeg's output is logged after the remux and the store's
 * completion, the `archived … sha256` line after the thumbnail; each is named by the first line
 * matching it after `since`.
 */
export function finalizeMarks(lines: Array<{ t: number; line: string }>, since: number): Mark[] {
  const patterns: Array<[RegExp, string]> = [
    [/\[ffmpeg\]/, 'ffmpeg log stored (after store complete)'],
    [/\[kura\] archived .*sha256/, '"archived … sha256" logged'],
  ];
  return patterns.flatMap(([pattern, name]) => {
    const found = lines.find((l) => l.t >= since && pattern.test(l.line));
    return found === undefined ? [] : [{ t: found.t, name }];
  });
}

/** Missed segments of the records: capture_gaps ranges, and the sequences they span. */
export async function gapsOf(databaseUrl: string, ids: string[]): Promise<{ ranges: number; segments: number }> {
  const [row] = await query<{ ranges: number; segments: number }>(
    databaseUrl,
    'select count(*)::int as ranges, coalesce(sum(last_sequence - first_sequence + 1), 0)::int as segments from capture_gaps where livestream_id = any($1)',
    [ids],
  );
  return row ?? { ranges: 0, segments: 0 };
}

export async function statusesOf(databaseUrl: string, ids: string[]): Promise<Map<string, number>> {
  const rows = await query<{ status: string; n: number }>(
    databaseUrl,
    'select status, count(*)::int as n from livestreams where id = any($1) group by status',
    [ids],
  );
  return new Map(rows.map((r) => [r.status, r.n]));
}

/**
 * The stored archive as a local file: on fs storage the file itself, on S3 a copy fetched from
 * the bucket into `scratch`. Its key is the record's (`video_key`).
 */
export async function archiveFile(env: Record<string, string>, databaseUrl: string, id: string, scratch: string): Promise<string> {
  const [row] = await query<{ video_key: string | null }>(databaseUrl, 'select video_key from livestreams where id = $1', [id]);
  if (!row?.video_key) throw new Error(`record ${id} has no archive`);
  if (env.KURA_STORAGE !== 's3') return path.join(env.KURA_DATA_DIR as string, 'archive', row.video_key);
  const client = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID as string, secretAccessKey: env.S3_SECRET_ACCESS_KEY as string },
  });
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: env.S3_BUCKET, Key: row.video_key }));
    const file = path.join(scratch, `${id}.mp4`);
    await pipeline(object.Body as Readable, createWriteStream(file));
    return file;
  } finally {
    client.destroy();
  }
}

/**
 * Reads /metrics: the event-loop delay prom-client measured since the previous read (it resets
 * its histogram at each), less the sampling interval the gauge counts in. Read once before a run
 * to start the window.
 */
export async function eventLoopLag(metricsUrl: string): Promise<{ p99Ms: number; maxMs: number }> {
  const metrics = await fetch(metricsUrl).then((r) => r.text());
  const gauge = (name: string) => Number(new RegExp(`^kura_nodejs_eventloop_lag_${name}_seconds\\s+([\\d.e+-]+)`, 'm').exec(metrics)?.[1] ?? Number.NaN);
  return { p99Ms: gauge('p99') * 1000 - EVENT_LOOP_SAMPLING_MS, maxMs: gauge('max') * 1000 - EVENT_LOOP_SAMPLING_MS };
}
