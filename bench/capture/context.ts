// What every section shares: the options, a scratch folder, the bench's PostgreSQL (outside Kura's
// process tree, its CPU not counted), the encoded streams, and the environment Kura runs with.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { encodedStream, type EncodedStream, type StreamSpec } from './encoded-stream.js';
import { loadSegments } from './live-server.js';
import type { Options } from './options.js';

export interface BenchContext {
  options: Options;
  root: string;
  /** A fresh database on the bench's PostgreSQL, so no run sees another's records or jobs. */
  database(name: string): Promise<string>;
  /** The stream of `seconds` at 720p30 ~3 Mbit/s, encoded once (cached) and its segments in memory. */
  stream(seconds: number): Promise<{ encoded: EncodedStream; bytes: Buffer[] }>;
  /** Where a run's V8 profiles go (null: not profiling). */
  profileDir(run: string): Promise<string | null>;
  /** Kura's CPU for one short capture, kept for the linearity check. */
  singleCaptureCpu: number | null;
}

export const HD: Omit<StreamSpec, 'seconds'> = { size: '1280x720', fps: 30, bitrate: '3000k', segmentSeconds: 1 };

export function createContext(options: Options, root: string, postgresUrl: string): BenchContext {
  const streams = new Map<number, Promise<{ encoded: EncodedStream; bytes: Buffer[] }>>();
  return {
    options,
    root,
    singleCaptureCpu: null,
    async database(name) {
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      try {
        await admin.query(`create database "bench_${name}"`);
      } finally {
        await admin.end();
      }
      const url = new URL(postgresUrl);
      url.pathname = `/bench_${name}`;
      return url.toString();
    },
    stream(seconds) {
      if (!streams.has(seconds)) {
        streams.set(
          seconds,
          encodedStream(options.cacheDir, { ...HD, seconds, segmentSeconds: options.segmentSeconds }).then(async (encoded) => ({
            encoded,
            bytes: await loadSegments(encoded),
          })),
        );
      }
      return streams.get(seconds) as Promise<{ encoded: EncodedStream; bytes: Buffer[] }>;
    },
    async profileDir(run) {
      if (options.profileDir === null) return null;
      const dir = path.join(options.profileDir, run);
      await mkdir(dir, { recursive: true });
      return dir;
    },
  };
}

/**
 * Kura's environment for the capture runs: production defaults but for what a bench on loopback
 * needs (private sources allowed, any free port) and a 1 s watch poll, so a capture starts within
 * a second of the stream going on air whatever the run.
 */
export function captureEnv(databaseUrl: string, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    KURA_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    KURA_WATCH_POLL_SECONDS: '1',
    KURA_CAPTURE_IDLE_SECONDS: '20',
    KURA_ALLOW_PRIVATE_SOURCES: 'true',
    ...extra,
  };
}

/** Resolves once `url` lists a segment (bare ffmpeg gives up on a 404 and streamlink on an empty playlist, so they start once the stream is on air). */
export async function onAir(url: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const response = await fetch(url);
    if (response.ok && (await response.text()).includes('#EXTINF')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} never went on air`);
}

export const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Megabits per second of an encoded stream. */
export const mbps = (e: EncodedStream) => (e.bytes * 8) / 1e6 / e.segments.reduce((s, x) => s + x.seconds, 0);
