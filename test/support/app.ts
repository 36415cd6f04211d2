import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { listenForChanges, type ClosableChangeFeed } from '../../src/adapters/db/change-listener.js';
import { isReachable } from '../../src/adapters/db/pool.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { createHlsSource } from '../../src/adapters/sources/hls-source.js';
import { routeSources } from '../../src/adapters/sources/source-router.js';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import { importLivestreams } from '../../src/core/import-livestreams.js';
import type { StreamSource } from '../../src/core/ports.js';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { parseChangelog } from '../../src/http/meta/changelog.js';
import { readPackageInfo } from '../../src/package-info.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import type { HistoryRecordJson } from './factories.js';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  /** Imports records through the real import use case; resolves once the change reached the app. */
  load(records: HistoryRecordJson[]): Promise<void>;
  /** Resolves at the next change notification the app receives. */
  nextChange(): Promise<void>;
  close(): Promise<void>;
}

export const TEST_PUBLIC_URL = 'http://kura.test';
/** The yt-dlp STAND-IN the test apps ask about YouTube URLs (see test/support/bin/yt-dlp-stand-in.mjs). */
export const YTDLP_STAND_IN = path.join(readPackageInfo().root, 'test', 'support', 'bin', 'yt-dlp-stand-in.mjs');

/** Kura's sources as the tests run them: HLS on loopback allowed, YouTube through the yt-dlp stand-in. */
export function testSources(): StreamSource {
  return routeSources([createYouTubeSource(createYtDlp(YTDLP_STAND_IN)), createHlsSource(createFetcher({ allowPrivate: true }))]);
}

/** The real app on its own fresh database, with the change feed (and so the read cache) on. */
export async function startTestApp(options: Partial<AppOptions> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const feed: ClosableChangeFeed = await listenForChanges(db.url, () => undefined);
  const waiters: Array<() => void> = [];
  feed.onChange(() => waiters.splice(0).forEach((wake) => wake()));
  const nextChange = () => new Promise<void>((resolve) => waiters.push(resolve));
  const info = readPackageInfo();
  const app = await buildApp(
    {
      livestreams: db.livestreams,
      captures: createCaptureRepo(db.pool),
      store: createFsStore(await mkdtemp(path.join(os.tmpdir(), 'kura-archive-'))),
      source: testSources(),
      isDatabaseReachable: () => isReachable(db.pool),
      changeFeed: feed,
      about: { name: info.name, version: info.version, commit: info.commit, changelog: parseChangelog(readFileSync(info.changelogPath, 'utf8')) },
    },
    { publicUrl: TEST_PUBLIC_URL, corsOrigins: ['*'], usdPerGbPerMonth: 0.023, readCacheEntries: 1000, logLevel: 'silent', ...options },
  );
  await app.ready();
  return {
    app,
    db,
    nextChange,
    async load(records) {
      const changed = nextChange();
      await importLivestreams(db, records);
      await changed;
    },
    async close() {
      await app.close();
      await feed.close();
      await db.drop();
    },
  };
}
