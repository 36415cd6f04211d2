import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from './cli.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { SEGMENT_REQUEST, startHlsFixture, type FixtureOptions, type HlsFixture } from './hls-fixture.js';
import { waitForRecord } from './records.js';
import { e2eEnv } from './serve-env.js';

/**
 * Real captures, one per test: ffmpeg encodes a live HLS stream in real time on 127.0.0.1, and
 * `kura serve` (the built command, its own process) on a database and data directory of the
 * test's own records it. `useCaptureHarness()` sets these up before each test and removes them after.
 */
export interface CaptureHarness {
  readonly db: TestDatabase;
  readonly dataDir: string;
  /** The running `kura serve`, if any. */
  readonly kura: KuraProcess | null;
  /** The fixture the test started last. */
  readonly fixture: HlsFixture;
  startFixture(options: FixtureOptions): Promise<HlsFixture>;
  env(extra?: Record<string, string>): Record<string, string>;
  /** Starts `kura serve` (with `nodeArgs`, e.g. a preloaded module); resolves with its URL once it listens. */
  serve(extra?: Record<string, string>, nodeArgs?: string[]): Promise<string>;
  /** Queues `url` with `kura archive`; resolves with the record id. */
  archive(url: string): Promise<string>;
  /** Resolves with the record once it is finished or failed. */
  settled(id: string): ReturnType<typeof waitForRecord>;
  /** Where the fs store keeps a record's video. */
  archivedFile(id: string): string;
  /**
   * Starts recording a live stream of INTERRUPTED_SECONDS, sends `signal` to the recording `kura serve` once 8
   * segments were fetched, starts `kura serve` again on the same data and database, and waits for
   * the stream to end. Resolves with the record id, the new api URL and how the first process exited.
   */
  interruptMidCapture(
    signal: NodeJS.Signals,
    options?: Partial<FixtureOptions>,
    beforeRestart?: (id: string) => Promise<void>,
  ): Promise<{ id: string; api: string; exit: Awaited<KuraProcess['exited']> }>;
  /** Archives a finished stream that `write` puts in a fixture, and waits until its record settles. */
  archiveWritten(
    write: (liveDir: string) => Promise<void>,
    extra?: Record<string, string>,
  ): Promise<{ api: string; id: string; done: Awaited<ReturnType<typeof waitForRecord>>; details: any }>;
}

/**
 * How long the stream of `interruptMidCapture` lasts: the kill comes after 8 one-second segments,
 * and the restarted server resumes well before the end on a quiet machine. At 30 frames a second.
 */
export const INTERRUPTED_SECONDS = 20;
export const INTERRUPTED_FRAMES = INTERRUPTED_SECONDS * 30;

export function useCaptureHarness(): CaptureHarness {
  let db: TestDatabase;
  let dataDir: string;
  let fixture: HlsFixture | null = null;
  let kura: KuraProcess | null = null;

  beforeEach(async () => {
    db = await createTestDatabase();
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-capture-'));
    await chmod(cwd, 0o755);
    dataDir = path.join(cwd, 'data');
  });
  afterEach(async () => {
    kura?.child.kill('SIGKILL');
    await kura?.exited;
    kura = null;
    await fixture?.close();
    fixture = null;
    await db.drop();
  });

  const harness: CaptureHarness = {
    get db() {
      return db;
    },
    get dataDir() {
      return dataDir;
    },
    get kura() {
      return kura;
    },
    get fixture() {
      if (fixture === null) throw new Error('no fixture started');
      return fixture;
    },
    async startFixture(options) {
      fixture = await startHlsFixture(options);
      return fixture;
    },
    env: (extra = {}) => e2eEnv(db.url, dataDir, { LOG_LEVEL: 'warn', ...extra }),
    async serve(extra = {}, nodeArgs = []) {
      kura = spawnKura(['serve'], harness.env({ LOG_LEVEL: 'info', ...extra }), path.dirname(dataDir), { nodeArgs });
      const line = await kura.waitForLog((l) => l.msg === 'kura api listening');
      return line.url as string;
    },
    async archive(url) {
      const result = await runKura(['archive', url, '--title', 'Fixture karaoke', '--channel', 'Fixture channel'], harness.env(), path.dirname(dataDir));
      expect(result.code, result.stderr).toBe(0);
      return /kura: (\S+) is/.exec(result.stdout)?.[1] as string;
    },
    settled: (id) => waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed'),
    archivedFile: (id) => path.join(dataDir, 'archive', 'archives', id, `${id}.mp4`),
    async interruptMidCapture(signal, options = {}, beforeRestart) {
      const live = await harness.startFixture({ seconds: INTERRUPTED_SECONDS, ...options });
      await harness.serve();
      const id = await harness.archive(live.url);
      const encoded = live.start();
      await live.seen(SEGMENT_REQUEST, 8);
      kura!.child.kill(signal);
      const exit = await kura!.exited;
      await beforeRestart?.(id);
      const api = await harness.serve(); // the same data dir and database: a redeploy
      await encoded;
      return { id, api, exit };
    },
    async archiveWritten(write, extra = {}) {
      const written = await harness.startFixture({ seconds: 1 });
      await write(path.join(written.dir, 'live'));
      const api = await harness.serve(extra);
      const id = await harness.archive(written.url);
      const done = await harness.settled(id);
      const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
      return { api, id, done, details };
    },
  };
  return harness;
}
