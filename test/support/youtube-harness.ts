import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { spawnKura, type KuraProcess } from './cli.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startGooglevideo, type Googlevideo } from './googlevideo-stand-in.js';
import { e2eEnv } from './serve-env.js';
import { ytDlpStandIn } from './yt-dlp-state.js';

/** What a test of a real `kura serve` recording YouTube through the stand-ins works with (see useYouTubeHarness). */
export interface YouTubeHarness {
  readonly db: TestDatabase;
  /** The test's folder: Kura's working directory, its data under `data/`, the yt-dlp STAND-IN's state. */
  readonly cwd: string;
  /** The googlevideo STAND-IN (YouTube's fragment server). */
  readonly googlevideo: Googlevideo;
  /** Kura's environment: the test's database and data folder, the yt-dlp STAND-IN as yt-dlp. */
  env(): Record<string, string>;
  /** What the yt-dlp STAND-IN answers from now on. */
  says(state: object): Promise<void>;
  /** Starts `kura serve`; resolves with its api's URL. */
  serve(): Promise<string>;
  /** Kills the running `kura serve` without a word (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
}

/**
 * A fresh database, folder and googlevideo STAND-IN for each test of the file, and the `kura
 * serve` a test started killed after it.
 */
export function useYouTubeHarness(folderPrefix: string): YouTubeHarness {
  let db: TestDatabase;
  let cwd: string;
  let googlevideo: Googlevideo;
  let kura: KuraProcess | null = null;
  const harness: YouTubeHarness = {
    get db() {
      return db;
    },
    get cwd() {
      return cwd;
    },
    get googlevideo() {
      return googlevideo;
    },
    env: () => e2eEnv(db.url, path.join(cwd, 'data'), ytDlpStandIn(cwd).env),
    says: (state) => ytDlpStandIn(cwd).says(state),
    async serve() {
      kura = spawnKura(['serve'], harness.env(), cwd);
      return (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    },
    async kill() {
      kura?.child.kill('SIGKILL');
      await kura?.exited;
      kura = null;
    },
  };
  beforeEach(async () => {
    db = await createTestDatabase();
    cwd = await mkdtemp(path.join(os.tmpdir(), folderPrefix));
    await chmod(cwd, 0o755);
    googlevideo = await startGooglevideo();
  });
  afterEach(async () => {
    await harness.kill();
    await googlevideo.close();
    await db.drop();
    await rm(cwd, { recursive: true, force: true });
  });
  return harness;
}
