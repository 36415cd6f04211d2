// Decisions: docs/decisions/0123-pg-boss-12.md
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, type MigrationResult } from '../../src/adapters/db/migrator.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { createBuiltinIndex } from '../../src/adapters/search/builtin-index.js';
import { createBuiltinSearch } from '../../src/adapters/search/builtin-search.js';
import { deliverWebhooks } from '../../src/core/notifications/deliver-webhooks.js';
import { SEARCH_INDEX } from '../../src/core/search/search.js';
import { compactLeftovers } from '../../src/jobs/loops/lifecycle-sweep.js';
import { createDeliverDeps } from '../../src/wiring/notifications.js';
import type { Search } from '../../src/wiring/search.js';
import { JOB_NAMES, type JobFailureHooks, type JobHandlers } from '../../src/jobs/catalogue.js';
import { startJobs } from '../../src/wiring/jobs.js';
import { workJobs } from '../support/jobs.js';
import { SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  FOLLOWS,
  KARAOKE_CAPTURE,
  MIKA,
  NIGHT_CAMERA,
  NIGHT_CHAT_CAPTURE,
  OWLS,
  pgBossJobs,
  type PgBossJobRow,
  RECORDS,
  SAKURA,
  seedPgBoss10Jobs,
  seedRelease060,
  WEBHOOKS,
  type Release060,
  type SeedRecord,
} from '../support/release-0.6.0.js';
import { startReceiver } from '../support/webhooks.js';

// A database Kura 0.6.0 made and used, with rows in every one of its tables, brought to this
// release's schema by the migrator as `kura serve` does at start; then read back through the
// current code (the app's routes and repositories, the worker's sweep and webhook sender). Its job
// queue is pg-boss 10's, with jobs waiting, which the start moves to pg-boss 12's (decision 0123).

/** Release 0.6.0 (commit 5d68e6b) shipped migrations 0001–0017, unchanged since (they are checksummed). */
const RELEASE_060_MIGRATIONS = 17;
/** Its tables, as its migrations left them (0008 dropped search_words). */
const RELEASE_060_TABLES = [
  'admin_actions',
  'api_tokens',
  'archive_checks',
  'capture_chunks',
  'capture_gaps',
  'capture_log_lines',
  'capture_segments',
  'captures',
  'channel_totals',
  'events',
  'follow_sightings',
  'follows',
  'lifecycle_repairs',
  'livestream_downloads',
  'livestream_submitters',
  'livestream_totals',
  'livestreams',
  'login_attempts',
  'rate_limit_windows',
  'search_changes',
  'search_documents',
  'search_outbox',
  'search_settings',
  'sessions',
  'setup_tokens',
  'storage_uploads',
  'users',
  'webhook_deliveries',
  'webhooks',
];

const info = readPackageInfo();
let db: TestDatabase;
let kura: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let seeded: Release060;
/** Each 0.6.0 table's rows (as jsonb) just before the upgrade, and just after it. */
let before: Map<string, Array<Record<string, unknown>>>;
let after: Map<string, Array<Record<string, unknown>>>;
let upgrade: MigrationResult;
/** The jobs pg-boss 10 held before the upgrade. */
let pgBoss10: PgBossJobRow[];
let searchLoaded: Promise<void>;

beforeAll(async () => {
  receiver = await startReceiver();
  const hookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  receiver.useSecret(hookSecret);
  db = await createTestDatabase({ migrated: false });
  await migrate(db.pool, await release060Migrations(), '0.6.0');
  seeded = await seedRelease060(db.pool, { url: receiver.url, secret: hookSecret });
  pgBoss10 = await seedPgBoss10Jobs(db.url, db.pool);
  before = await rowsOf(db.pool, await tablesOf(db.pool));
  upgrade = await migrate(db.pool, info.migrationsDir, info.version);
  after = await rowsOf(db.pool, [...before.keys()]);
  kura = await startTestApp({}, {}, { database: db, search: (database, feed) => builtinSearch(database.pool, feed) });
});
afterAll(async () => {
  await (kura ? kura.close() : db?.drop());
  await receiver?.close();
});

describe('a database of Kura 0.6.0', () => {
  it('holds rows in every table of its schema', () => {
    expect([...before.keys()]).toEqual(RELEASE_060_TABLES);
    const empty = [...before].filter(([, rows]) => rows.length === 0).map(([table]) => table);
    expect(empty).toEqual([]);
  });

  it("queues its jobs on pg-boss 10's schema (version 24): waiting, to be retried, running, ended, and one of a queue since retired", () => {
    expect(pgBoss10.map(({ name, key, state }) => [name, key, state])).toEqual([
      ['capture-chat', RECORDS.nightChat.id, 'active'],
      ['capture-stream', RECORDS.nightChat.id, 'retry'],
      ['deliver-webhooks', 'webhooks', 'created'],
      ['index-records', 'search', 'completed'],
      ['sweep-lifecycle', 'sweep', 'created'],
      ['watch-stream', RECORDS.zelda.id, 'created'],
    ]);
  });
});

describe('upgraded to this release', () => {
  it('applies the migrations after 0017, each recorded with the release that applied it', async () => {
    const names = (await readdir(info.migrationsDir))
      .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
      .map((file) => file.replace(/\.sql$/, ''))
      .sort();
    // a release of its own, or the versions below could not tell the two apart
    expect(info.version).not.toBe('0.6.0');
    expect(upgrade).toEqual({ applied: names.slice(RELEASE_060_MIGRATIONS), alreadyApplied: RELEASE_060_MIGRATIONS });
    const { rows } = await db.pool.query('select name, kura_version from schema_migrations order by name');
    expect(rows).toEqual(names.map((name, i) => ({ name, kura_version: i < RELEASE_060_MIGRATIONS ? '0.6.0' : info.version })));
  });

  it("moves the unfinished jobs of this release's queues to pg-boss 12's schema as they were, the running one to be retried now, and drops pg-boss 10's", async () => {
    const { rows } = await db.pool.query(`select (select version from pgboss.version) as version, to_regnamespace('pgboss_v10') is null as dropped`);
    expect(rows).toEqual([{ version: 46, dropped: true }]);
    const unfinished = pgBoss10.filter((job) => (JOB_NAMES as string[]).includes(job.name) && ['created', 'retry', 'active'].includes(job.state));
    expect(unfinished).toHaveLength(4);
    const moved = await pgBossJobs(db.pool, 'pgboss');
    expect(moved).toEqual(unfinished.map((job) => (job.state === 'active' ? { ...job, state: 'retry', startAfter: expect.any(Date) } : job)));
    const chat = moved.find((job) => job.name === 'capture-chat')!;
    expect(chat.startAfter.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('runs the moved jobs on pg-boss 12: the due ones, and the scheduled watch once it is brought forward, each once, as the job pg-boss 10 held', async () => {
    const ran: string[] = [];
    let ranChanged = () => undefined as void;
    const record = (name: string) => async (payload: { livestreamId?: string }, job: { id: string }) => {
      ran.push(`${name} ${payload.livestreamId ?? '-'} ${job.id}`);
      ranChanged();
    };
    const ranCount = async (count: number) => {
      while (ran.length < count) await new Promise<void>((resolve) => (ranChanged = resolve));
    };
    const handlers = Object.fromEntries(JOB_NAMES.map((name) => [name, record(name)])) as unknown as JobHandlers;
    const hooks = Object.fromEntries(JOB_NAMES.map((name) => [name, async () => undefined])) as unknown as JobFailureHooks;
    const worker = await startJobs({ pool: db.pool, onError: () => undefined });
    const stop = await workJobs(worker, db.url, { handlers, hooks }, { maxCaptures: 2 });
    try {
      const moved = await pgBossJobs(db.pool, 'pgboss');
      const ranAs = (job: PgBossJobRow) => `${job.name} ${job.name === 'deliver-webhooks' ? '-' : job.key} ${job.id}`;
      const watch = moved.find((job) => job.name === 'watch-stream')!;
      await ranCount(3);
      expect(ran.sort()).toEqual(
        moved
          .filter((job) => job !== watch)
          .map(ranAs)
          .sort(),
      );
      await kura.jobs.watch(RECORDS.zelda.id); // the stream is live now: its waiting watch comes forward
      await ranCount(4);
      expect(ran[3]).toBe(ranAs(watch));
      // a handler's end is written after it returns
      await expect
        .poll(async () => (await pgBossJobs(db.pool, 'pgboss')).map((job) => job.state))
        .toEqual(['completed', 'completed', 'completed', 'completed']);
    } finally {
      await stop();
    }
  });

  it('keeps every row of the 0.6.0 tables as it was (columns added since aside)', () => {
    for (const [table, rows] of before) {
      const columns = Object.keys(rows[0] ?? {});
      const kept = (after.get(table) ?? []).map((row) => Object.fromEntries(columns.map((column) => [column, row[column]])));
      expect(sorted(kept), table).toEqual(sorted(rows));
    }
  });

  it('lists the finished records in the history, and every record with unfinished ones', async () => {
    const { karaoke, piano, zelda, nightChat, camera } = RECORDS;
    const history = await getJson<Array<Record<string, unknown>>>('/api/history');
    expect(history).toEqual([
      expect.objectContaining({
        ...shown(karaoke),
        downloadUrl: `${TEST_PUBLIC_URL}/api/download/${karaoke.id}/video`,
        thumbnail: `${TEST_PUBLIC_URL}/api/download/${karaoke.id}/thumbnail`,
        integrity: 'ok',
      }),
      expect.objectContaining({ ...shown(piano), downloadUrl: `https://archive.example.org/${piano.id}.mp4` }),
    ]);
    const all = await getJson<Array<Record<string, unknown>>>('/api/history?unfinished=true');
    expect(all).toEqual([zelda, nightChat, camera, karaoke, piano].map((record) => expect.objectContaining(shown(record))));
  });

  it('queues the upcoming and live records, the live one with its recording so far and its encoder log', async () => {
    const { zelda, nightChat } = RECORDS;
    const queue = await getJson<Array<Record<string, unknown>>>('/api/queue');
    expect(queue.map((record) => record.id)).toEqual([nightChat.id, zelda.id]);
    expect(queue[0]).toMatchObject({ ...shown(nightChat), capture: { progress: expect.any(Object) } });
    const { first, next, lost, segmentSeconds, bytesEach } = NIGHT_CHAT_CAPTURE;
    const segments = next - first - (lost.lastSequence - lost.firstSequence + 1);
    expect((queue[0]?.capture as { progress: object }).progress).toMatchObject({
      recordedSeconds: segments * segmentSeconds,
      bytes: segments * bytesEach,
      bitsPerSecond: (bytesEach * 8) / segmentSeconds,
      gaps: 1,
      lostSeconds: lost.seconds,
    });
    expect(queue[1]).toMatchObject({ ...shown(zelda), capture: null, lastCheck: null });
    const log = await kura.app.inject({ url: `/api/logz?id=${nightChat.id}` });
    expect([log.statusCode, log.body]).toEqual([200, NIGHT_CHAT_CAPTURE.logLines.map((line) => `${line}\n`).join('')]);
  });

  it('counts the records in the stats and each channel as they are', async () => {
    const counted = Object.values(RECORDS).filter((record) => record.status !== 'failed') as SeedRecord[];
    expect(await getJson('/api/stats')).toMatchObject({
      videoAmount: counted.length,
      totalFileSize: sum(counted, (record) => record.archive?.fileSizeBytes ?? 0),
      totalLength: sum(counted, (record) => record.archive?.lengthSeconds ?? 0),
      uniqueChannels: new Set(counted.map((record) => record.channel.id)).size,
    });
    const channels = await getJson<Array<{ channelId: string }>>('/api/channels');
    expect(new Map(channels.map((channel) => [channel.channelId, channel]))).toEqual(
      new Map([
        [SAKURA.id, channelOf(SAKURA, RECORDS.karaoke, false)],
        [OWLS.id, channelOf(OWLS, RECORDS.piano, true)],
        [NIGHT_CAMERA.id, channelOf(NIGHT_CAMERA, null, true)],
      ]),
    );
  });

  it("shows the finished record's capture from its segments, then the same from the summary the worker's sweep compacts them to", async () => {
    const { karaoke } = RECORDS;
    const { parts, gap, segmentSeconds } = KARAOKE_CAPTURE;
    const capture = {
      state: 'finalized',
      endReason: 'endlist',
      parts: parts.map(({ part, count, bytesEach }) => ({ part, bytes: count * bytesEach, segments: count, seconds: count * segmentSeconds })),
      gaps: [gap],
      complete: false,
      progress: null,
    };
    const details = await getJson(`/api/video/${karaoke.id}`);
    expect(details).toMatchObject({
      ...shown(karaoke),
      downloads: 7,
      sha256: 'ab'.repeat(32),
      integrity: 'ok',
      verifiedAt: hoursFrom(-1),
      capture,
    });

    const compacted: object[] = [];
    await compactLeftovers(kura.db.captures, { info: (fields) => compacted.push(fields), warn: () => undefined });
    expect(compacted).toEqual([expect.objectContaining({ compacted: 1 })]);
    const { rows } = await db.pool.query('select count(*)::int as n from capture_segments where livestream_id = $1', [karaoke.id]);
    expect(rows[0].n).toBe(0);
    expect(await getJson(`/api/video/${karaoke.id}`)).toMatchObject({ capture });
  });

  it('logs the local admin in with its password, and its 0.6.0 session and API token still authenticate it', async () => {
    const logIn = (password: string) =>
      kura.app.inject({ method: 'POST', url: '/auth/local', headers: SAME_ORIGIN, payload: { username: MIKA.name, password } });
    expect((await logIn('not the password')).statusCode).toBe(401);
    const loggedIn = await logIn(MIKA.password);
    expect(loggedIn.statusCode).toBe(200);
    const caller = { id: MIKA.name, name: MIKA.name, provider: 'local', role: 'admin' };
    const cookie = loggedIn.cookies.find((c) => c.name === 'kura_session')?.value;
    for (const headers of [{ cookie: `kura_session=${cookie}` }, { cookie: `kura_session=${seeded.sessionToken}` }, bearer()]) {
      expect(await getJson('/api/user', headers)).toMatchObject(caller);
    }
    expect(await getJson('/api/tokens', bearer())).toEqual([
      { id: expect.any(String), name: 'nightly backup', createdAt: hoursFrom(-100), lastUsedAt: expect.any(String) },
    ]);
  });

  it('lists the follows with their health, and what each decided about the streams it saw', async () => {
    const follows = await getJson<Array<Record<string, unknown>>>('/api/follows', bearer());
    expect(follows).toEqual([
      expect.objectContaining({
        id: FOLLOWS.owls,
        kind: 'youtube_channel',
        channelId: OWLS.id,
        rules: { titleInclude: 'chat|karaoke', titleExclude: 'rerun', membersOnly: 'skip', quality: '1080p' },
        health: 'ok',
        queued: 1,
        signals: [expect.objectContaining({ signal: 'feed', lastError: null }), expect.objectContaining({ signal: 'tabs', lastError: null })],
      }),
      expect.objectContaining({ id: FOLLOWS.camera, kind: 'hls_endpoint', channelId: NIGHT_CAMERA.id, health: 'paused', failingSince: hoursFrom(-3) }),
    ]);
    const owls = await getJson<{ recent: Array<Record<string, unknown>> }>(`/api/follows/${FOLLOWS.owls}`, bearer());
    expect(owls.recent.map(({ streamId, verdict }) => [streamId, verdict])).toEqual([
      [RECORDS.nightChat.id, 'queued'],
      ['pReview0008', 'later'],
      ['mEmbers0007', 'skipped'],
    ]);
  });

  it("lists the webhooks and their deliveries, and sends the pending ones from 0.6.0's events, signed with its secret", async () => {
    const webhooks = await getJson<Array<Record<string, unknown>>>('/api/webhooks', bearer());
    expect(webhooks).toEqual([
      expect.objectContaining({ id: WEBHOOKS.all, url: receiver.url, events: null, owner: null, disabledAt: null }),
      expect.objectContaining({ id: WEBHOOKS.discord, discord: true, events: ['livestream.finished'], channelId: SAKURA.id }),
      expect.objectContaining({
        id: WEBHOOKS.mine,
        owner: MIKA.submitter,
        disabledAt: expect.any(String),
        disabledReason: expect.stringMatching(/^Every delivery failed/),
      }),
    ]);
    expect((await getJson<Array<{ id: string }>>('/api/user/webhooks', bearer())).map((webhook) => webhook.id)).toEqual([WEBHOOKS.mine]);
    const statuses = async (id: string) => (await getJson<Array<{ status: string }>>(`/api/webhooks/${id}/deliveries`, bearer())).map((d) => d.status);
    expect(new Set(await statuses(WEBHOOKS.mine))).toEqual(new Set(['given_up']));
    expect(await statuses(WEBHOOKS.discord)).toEqual(['delivered']);
    const pending = (await statuses(WEBHOOKS.all)).filter((status) => status === 'pending');
    // the latest event of each record (the removed one's too) and of the failing follow
    expect(pending).toHaveLength(6);

    await deliverWebhooks(createDeliverDeps({ allowPrivateSources: true, publicUrl: TEST_PUBLIC_URL }, db.pool));
    expect(receiver.refusedSignatures).toEqual([]);
    expect(receiver.received).toHaveLength(pending.length);
    const { karaoke, zelda, nightChat, camera } = RECORDS;
    const received = new Map(receiver.received.map((event) => [`${event.type} ${String(event.data.id)}`, event.data]));
    expect([...received.keys()].sort()).toEqual(
      [
        `follow.unhealthy ${FOLLOWS.camera}`,
        `livestream.failed ${camera.id}`,
        `livestream.finished ${karaoke.id}`,
        `livestream.live ${nightChat.id}`,
        `livestream.queued ${zelda.id}`,
        'livestream.removed gOne0000006',
      ].sort(),
    );
    expect(received.get(`livestream.finished ${karaoke.id}`)).toMatchObject({
      ...shown(karaoke),
      downloadUrl: `${TEST_PUBLIC_URL}/api/download/${karaoke.id}/video`,
    });
    expect(received.get(`livestream.failed ${camera.id}`)).toMatchObject(shown(camera));
    expect(received.get('livestream.removed gOne0000006')).toMatchObject({ title: 'Old karaoke', submitters: ['discord/1003'] });
    expect(received.get(`follow.unhealthy ${FOLLOWS.camera}`)).toMatchObject({ kind: 'hls_endpoint', channelName: NIGHT_CAMERA.name });
    expect((await statuses(WEBHOOKS.all)).filter((status) => status !== 'delivered')).toEqual([]);
  });

  it('searches the documents 0.6.0 indexed, with the search key it handed out', async () => {
    const access = await getJson<{ apiKey: string; index: string }>('/api/search');
    expect(access).toMatchObject({ apiKey: seeded.searchKey, index: SEARCH_INDEX });
    await searchLoaded;
    const search = async (q: string) => {
      const response = await kura.app.inject({
        method: 'POST',
        url: `/api/search-engine/indexes/${SEARCH_INDEX}/search`,
        headers: { authorization: `Bearer ${access.apiKey}` },
        payload: { q },
      });
      expect(response.statusCode).toBe(200);
      return response.json<{ hits: Array<{ id: string }> }>().hits;
    };
    const { rows } = await db.pool.query('select document from search_documents where id = $1', [RECORDS.karaoke.id]);
    expect(await search('karaoke')).toEqual([rows[0].document]);
    expect(new Set((await search('owls')).map((hit) => hit.id))).toEqual(new Set([RECORDS.piano.id, RECORDS.nightChat.id]));
  });
});

/** The first 17 migration files alone, in a folder of their own: the schema of release 0.6.0. */
async function release060Migrations(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-migrations-0.6.0-'));
  const files = (await readdir(info.migrationsDir)).filter((file) => /^\d{4}_.*\.sql$/.test(file)).sort();
  for (const file of files.slice(0, RELEASE_060_MIGRATIONS)) await copyFile(path.join(info.migrationsDir, file), path.join(dir, file));
  expect(files[RELEASE_060_MIGRATIONS - 1]).toBe('0017_personal_webhooks.sql');
  return dir;
}

/** The tables of the database's schema, by name (the migrator's own left out). */
async function tablesOf(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ tablename: string }>(
    `select tablename from pg_tables where schemaname = current_schema() and tablename <> 'schema_migrations' order by tablename`,
  );
  return rows.map((row) => row.tablename);
}

async function rowsOf(pool: pg.Pool, tables: string[]): Promise<Map<string, Array<Record<string, unknown>>>> {
  const found = new Map<string, Array<Record<string, unknown>>>();
  for (const table of tables)
    found.set(
      table,
      (await pool.query(`select to_jsonb(t) as row from ${table} t`)).rows.map((r) => r.row),
    );
  return found;
}

const sorted = (rows: Array<Record<string, unknown>>) => rows.map((row) => JSON.stringify(row)).sort();
const sum = <T>(items: T[], of: (item: T) => number) => items.reduce((total, item) => total + of(item), 0);
const hoursFrom = (hours: number) => new Date(seeded.seededAt.getTime() + hours * 3_600_000).toISOString();
const bearer = () => ({ authorization: `Bearer ${seeded.apiToken}` });

/** What the API shows of a seeded record whatever the route (the admin's view: the source URL whole). */
function shown(record: SeedRecord): Record<string, unknown> {
  return {
    id: record.id,
    status: record.status,
    finished: record.status === 'finished',
    title: record.title,
    channelId: record.channel.id,
    channelName: record.channel.name,
    platform: record.platform,
    sourceUrl: record.sourceUrl,
    submitters: record.submitters,
    scheduledStart: hoursFrom(record.scheduledIn),
    ...(record.archive ? { fileSizeBytes: record.archive.fileSizeBytes, length: record.archive.lengthSeconds } : {}),
  };
}

/** A channel as GET /api/channels lists it, from the seeded records. */
function channelOf(channel: { id: string; name: string }, latest: SeedRecord | null, followed: boolean): Record<string, unknown> {
  const records = (Object.values(RECORDS) as SeedRecord[]).filter((record) => record.channel.id === channel.id);
  const finished = records.filter((record) => record.status === 'finished');
  return {
    channelId: channel.id,
    channelName: channel.name,
    archives: finished.length,
    upcoming: records.filter((record) => record.status === 'upcoming' || record.status === 'live').length,
    totalFileSize: sum(finished, (record) => record.archive?.fileSizeBytes ?? 0),
    totalLength: sum(finished, (record) => record.archive?.lengthSeconds ?? 0),
    latestArchive: latest && { id: latest.id, title: latest.title, scheduledStart: hoursFrom(latest.scheduledIn) },
    followed,
  };
}

async function getJson<T = Record<string, unknown>>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await kura.app.inject({ url, headers });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json<T>();
}

/**
 * The built-in search as `createSearch` makes it, but saying when its index is loaded, so the
 * search test starts then instead of racing the load (a search waits a second for it at most).
 */
function builtinSearch(pool: pg.Pool, feed: Parameters<typeof createBuiltinSearch>[1]): Search {
  let loaded = () => undefined as void;
  let failed = (_error: Error) => undefined as void;
  searchLoaded = new Promise<void>((resolve, reject) => ((loaded = resolve), (failed = reject)));
  // the search test meets a failed load; until then it is no unhandled rejection
  searchLoaded.catch(() => undefined);
  const engine = createBuiltinSearch(pool, feed, { onWarming: (warming) => warming || loaded(), onIndexError: failed });
  const url = `${TEST_PUBLIC_URL}/api/search-engine`;
  return {
    access: async () => ({ url, apiKey: await engine.searchKey(), index: SEARCH_INDEX }),
    engine,
    index: createBuiltinIndex(pool),
    close: () => engine.close(),
  };
}
