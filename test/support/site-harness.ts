import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from './cli.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startHlsFixture, type FixtureOptions, type HlsFixture } from './hls-fixture.js';
import { waitForRecord } from './records.js';
import { e2eEnv } from './serve-env.js';
import { ytDlpStandIn } from './yt-dlp-state.js';

/**
 * A live site's stream recorded end to end, one per test: the yt-dlp STAND-IN answering as the
 * sites' extractors do (test/support/yt-dlp-sites.mjs), a live HLS fixture as the site's playlist,
 * `kura serve` on a database and directory of the test's own. `useSiteHarness()` sets these up
 * before each test and removes them after.
 */
export interface SiteHarness {
  readonly db: TestDatabase;
  /** The test's directory: the yt-dlp stand-in's state, and `data/`. */
  readonly cwd: string;
  /** The `kura` environment: the database, `data/`, the yt-dlp stand-in, and `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** What the sites answer from now on (the stand-in notes each of its runs). */
  sitesSay(sites: object): Promise<void>;
  /** The arguments of every yt-dlp run so far. */
  ytDlpRuns(): Promise<string[][]>;
  startFixture(options: FixtureOptions): Promise<HlsFixture>;
  /** Starts `kura serve`; resolves with its URL once it listens. */
  serve(extra?: Record<string, string>): Promise<string>;
  archive(url: string): ReturnType<typeof runKura>;
  /** Resolves with the record once it is finished or failed. */
  settled(id: string): ReturnType<typeof waitForRecord>;
  /** Where the fs store keeps a record's video. */
  archivedFile(id: string): string;
}

export function useSiteHarness(): SiteHarness {
  let db: TestDatabase;
  let cwd: string;
  let fixture: HlsFixture | null = null;
  let kura: KuraProcess | null = null;
  beforeEach(async () => {
    db = await createTestDatabase();
    cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-sites-'));
    await chmod(cwd, 0o755);
  });
  afterEach(async () => {
    kura?.child.kill('SIGKILL');
    await kura?.exited;
    kura = null;
    await fixture?.close();
    fixture = null;
    await db.drop();
    await rm(cwd, { recursive: true, force: true });
  });
  const calls = () => path.join(cwd, 'yt-dlp-calls.log');
  const harness: SiteHarness = {
    get db() {
      return db;
    },
    get cwd() {
      return cwd;
    },
    env: (extra = {}) => e2eEnv(db.url, path.join(cwd, 'data'), { ...ytDlpStandIn(cwd).env, ...extra }),
    sitesSay: (sites) => ytDlpStandIn(cwd).says({ sites, calls: calls() }),
    async ytDlpRuns() {
      const lines = (await readFile(calls(), 'utf8')).trim().split('\n');
      return lines.map((line) => JSON.parse(line) as string[]);
    },
    async startFixture(options) {
      fixture = await startHlsFixture(options);
      return fixture;
    },
    async serve(extra = {}) {
      kura = spawnKura(['serve'], harness.env(extra), cwd);
      return (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    },
    archive: (url) => runKura(['archive', url], harness.env(), cwd),
    settled: (id) => waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed'),
    archivedFile: (id) => path.join(cwd, 'data', 'archive', 'archives', id, `${id}.mp4`),
  };
  return harness;
}
