// Decisions: docs/decisions/0123-pg-boss-12.md
// A database as Kura 0.6.0 (commit 5d68e6b, migrations 0001–0017) left it after some use, written
// with plain SQL in the order its code wrote it, so the triggers of that schema (totals, search
// outbox, webhook events and their deliveries) filled what they filled then.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createScryptPasswords } from '../../src/adapters/auth/scrypt-passwords.js';
import { hashSecret, randomSecret } from '../../src/core/accounts/account.js';
import { inTransaction } from '../../src/adapters/db/pool.js';
import PgBoss10 from 'pg-boss-10';
import { queueSpecs } from '../../src/jobs/catalogue.js';
import { JOB_NOTIFY_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import { installJobNotify } from '../../src/jobs/runtime/pg-boss-tables.js';

export const SAKURA = { id: 'UCsakuraUtaite0000000001', name: 'Sakura Utaite' };
export const OWLS = { id: 'UCnightOwls0000000000002', name: 'Night Owls' };
export const NIGHT_CAMERA = { id: 'night-camera', name: 'Night camera' };

/** The local admin of the instance, who made the follows and webhooks. */
export const MIKA = { name: 'mika', password: 'correct horse battery staple', submitter: 'local/mika' };
export const FOLLOWS = { owls: 'owlsFollow01', camera: 'camFollow002' };
export const WEBHOOKS = { all: 'wh_all_events01', discord: 'wh_sakura_discord', mine: 'wh_mika_personal' };

export interface SeedRecord {
  id: string;
  platform: 'youtube' | 'hls';
  sourceUrl: string;
  status: 'upcoming' | 'live' | 'finished' | 'failed';
  title: string;
  channel: { id: string; name: string };
  /** Hours from the seeding. */
  scheduledIn: number;
  submitters: string[];
  /** Finished records: measured from the stored file, or (imported) an archive elsewhere. */
  archive?: { fileSizeBytes: number; lengthSeconds: number; stored: boolean };
  failureReason?: string;
}

const youtube = (id: string) => `https://www.youtube.com/watch?v=${id}`;

/** Every record 0.6.0 still held, one of each status and an imported one. */
export const RECORDS = {
  karaoke: {
    id: 'kAraoke0001',
    platform: 'youtube',
    sourceUrl: youtube('kAraoke0001'),
    status: 'finished',
    title: 'Karaoke night ~ three hours of songs',
    channel: SAKURA,
    scheduledIn: -30,
    submitters: ['discord/1001', MIKA.submitter],
    archive: { fileSizeBytes: 1_512_000_000, lengthSeconds: 7190, stored: true },
  },
  piano: {
    id: 'pIano000002',
    platform: 'youtube',
    sourceUrl: youtube('pIano000002'),
    status: 'finished',
    title: 'Piano improv',
    channel: OWLS,
    scheduledIn: -240,
    submitters: ['discord/1002'],
    archive: { fileSizeBytes: 804_000_000, lengthSeconds: 3600, stored: false },
  },
  zelda: {
    id: 'zElda000003',
    platform: 'youtube',
    sourceUrl: youtube('zElda000003'),
    status: 'upcoming',
    title: 'Zelda randomizer race',
    channel: SAKURA,
    scheduledIn: 20,
    submitters: [MIKA.submitter],
  },
  nightChat: {
    id: 'nIghtchat04',
    platform: 'youtube',
    sourceUrl: youtube('nIghtchat04'),
    status: 'live',
    title: 'Late night chat',
    channel: OWLS,
    scheduledIn: -1,
    submitters: [`follow/${FOLLOWS.owls}`, 'discord/1001'],
  },
  camera: {
    id: 'cam-20261120',
    platform: 'hls',
    sourceUrl: 'https://cams.example.org/night/index.m3u8',
    status: 'failed',
    title: 'Night camera live',
    channel: NIGHT_CAMERA,
    scheduledIn: -5,
    submitters: [`follow/${FOLLOWS.camera}`],
    failureReason: 'https://cams.example.org/night/index.m3u8 answered HTTP 503 for 30 minutes',
  },
} satisfies Record<string, SeedRecord>;

/** Imported, then taken down by an admin: only its admin action, events and search change remain. */
const TAKEN_DOWN: SeedRecord = {
  id: 'gOne0000006',
  platform: 'youtube',
  sourceUrl: youtube('gOne0000006'),
  status: 'finished',
  title: 'Old karaoke',
  channel: SAKURA,
  scheduledIn: -400,
  submitters: ['discord/1003'],
  archive: { fileSizeBytes: 90_000_000, lengthSeconds: 600, stored: false },
};

/** The finished capture's segments: part 1 is 0–9, 10–11 were lost, part 2 (after a discontinuity) is 12–21, 6 s each. */
export const KARAOKE_CAPTURE = {
  parts: [
    { part: 1, first: 0, count: 10, bytesEach: 1_000_000 },
    { part: 2, first: 12, count: 10, bytesEach: 900_000 },
  ],
  gap: { firstSequence: 10, lastSequence: 11, seconds: 12, reason: 'HTTP 503' },
  segmentSeconds: 6,
};

/** The live capture: sequences 100–159 of 2 s and 250 kB each in one part, but 130–131, lost. */
export const NIGHT_CHAT_CAPTURE = {
  first: 100,
  next: 160,
  lost: { firstSequence: 130, lastSequence: 131, seconds: 4, reason: 'HTTP 404' },
  segmentSeconds: 2,
  bytesEach: 250_000,
  logLines: ['[hls] opening part 1', '[hls] segment 130 lost: HTTP 404', '[hls] segment 159 stored'],
};

/** What the test needs to use the data: its secrets, and when it was written. */
export interface Release060 {
  seededAt: Date;
  sessionToken: string;
  apiToken: string;
  searchKey: string;
}

/**
 * Writes the data. `hook` is the instance webhook every event goes to (a receiver of the test's,
 * with its secret): the deliveries of the latest event of each record and of the follow are left
 * pending, the rest were delivered.
 */
export async function seedRelease060(pool: pg.Pool, hook: { url: string; secret: string }): Promise<Release060> {
  const seededAt = new Date();
  const at = (hours: number) => new Date(seededAt.getTime() + hours * 3_600_000);
  const secrets = await seedAccounts(pool, at);
  await seedFollows(pool, at);
  await seedWebhooks(pool, at, hook);
  await seedRecords(pool, at);
  await seedFinishedCapture(pool, at);
  await seedLiveCapture(pool, at);
  await takeDown(pool, TAKEN_DOWN, at);
  const searchKey = await seedSearch(pool);
  await seedArchiveFacts(pool, at);
  await seedFollowHistory(pool, at);
  await settleDeliveries(pool, at);
  await pool.query(`insert into lifecycle_repairs (action, count) values ('watch', 2), ('fail', 1)`);
  return { seededAt, ...secrets, searchKey };
}

type At = (hours: number) => Date;

async function seedAccounts(pool: pg.Pool, at: At): Promise<{ sessionToken: string; apiToken: string }> {
  // offered at the first start, before the admin was made with `kura user add --admin`
  await pool.query('insert into setup_tokens (token_hash, created_at) values ($1, $2)', [hashSecret(randomBytes(16).toString('hex')), at(-300)]);
  const passwordHash = await createScryptPasswords().hash(MIKA.password);
  const { rows } = await pool.query<{ id: string }>(
    `insert into users (provider, provider_user_id, name, role, password_hash, created_at, updated_at, last_login_at)
     values ('local', $1, $1, 'admin', $2, $3, $3, $4) returning id::text`,
    [MIKA.name, passwordHash, at(-300), at(-48)],
  );
  const mika = (rows[0] as { id: string }).id;
  await pool.query(
    `insert into users (provider, provider_user_id, name, avatar_url, created_at, last_login_at)
     values ('discord', '1001', 'Hana', 'https://cdn.discordapp.com/avatars/1001/a1b2c3.png', $1, $2)`,
    [at(-200), at(-30)],
  );
  const sessionToken = randomSecret();
  await pool.query('insert into sessions (token_hash, user_id, created_at, last_used_at, expires_at) values ($1, $2, $3, $4, $5)', [
    hashSecret(sessionToken),
    mika,
    at(-48),
    at(-2),
    at(28 * 24),
  ]);
  const apiToken = `kura_${randomSecret()}`;
  await pool.query('insert into api_tokens (user_id, name, token_hash, created_at, last_used_at) values ($1, $2, $3, $4, $5)', [
    mika,
    'nightly backup',
    hashSecret(apiToken),
    at(-100),
    at(-6),
  ]);
  // a Discord login between its redirect and its callback, and the windows of a few rate limits
  await pool.query(
    `insert into login_attempts (id_hash, provider, state, code_verifier, nonce, next_path, expires_at)
     values ($1, 'discord', $2, $3, $4, '/queue', $5)`,
    [hashSecret(randomSecret()), randomSecret(), randomSecret(), randomSecret(), at(0.1)],
  );
  await pool.query(
    `insert into rate_limit_windows (bucket, key, window_started_at, window_seconds, hits)
     values ('login', 'local/mika', $1, 900, 1), ('submit', 'discord/1001', $1, 3600, 2)`,
    [at(-0.5)],
  );
  return { sessionToken, apiToken };
}

async function seedFollows(pool: pg.Pool, at: At): Promise<void> {
  const signal = (name: string, error: string | null) => ({
    signal: name,
    lastCheckedAt: at(error ? -2 : -0.05).toISOString(),
    lastOkAt: at(error ? -3 : -0.05).toISOString(),
    lastError: error,
    lastErrorAt: error ? at(-2).toISOString() : null,
    nextCheckAt: at(0.05).toISOString(),
  });
  await pool.query(
    `insert into follows (id, kind, url, channel_id, channel_name, title, title_include, title_exclude, members_only, quality,
       paused, created_by, created_at, queued_count, last_checked_at, next_check_at, failing_since, signals)
     values ($1, 'youtube_channel', $2, $3, $4, null, 'chat|karaoke', 'rerun', 'skip', '1080p', false, $5, $6, 1, $7, $8, null, $9),
            ($10, 'hls_endpoint', $11, $12, $13, 'Night camera live', null, null, 'skip', null, true, $5, $14, 1, $15, $8, $16, $17)`,
    [
      FOLLOWS.owls,
      `https://www.youtube.com/channel/${OWLS.id}`,
      OWLS.id,
      OWLS.name,
      MIKA.submitter,
      at(-220),
      at(-0.05),
      at(0.05),
      JSON.stringify([signal('feed', null), signal('tabs', null)]),
      FOLLOWS.camera,
      RECORDS.camera.sourceUrl,
      NIGHT_CAMERA.id,
      NIGHT_CAMERA.name,
      at(-150),
      at(-2),
      at(-3),
      JSON.stringify([signal('playlist', `${RECORDS.camera.sourceUrl}: HTTP 503`)]),
    ],
  );
}

async function seedWebhooks(pool: pg.Pool, at: At, hook: { url: string; secret: string }): Promise<void> {
  const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
  await pool.query(
    `insert into webhooks (id, url, events, channel_id, secret, created_by, created_at, owner) values
       ($1, $2, null, null, $3, $4, $5, null),
       ($6, 'https://discord.com/api/webhooks/123456789012345678/aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_-xy', '{livestream.finished}', $7, $8, $4, $9, null),
       ($10, 'https://hooks.mika.example.net/kura', null, null, $11, $4, $12, $4)`,
    [WEBHOOKS.all, hook.url, hook.secret, MIKA.submitter, at(-210), WEBHOOKS.discord, SAKURA.id, secret(), at(-205), WEBHOOKS.mine, secret(), at(-190)],
  );
}

/** Each record as 0.6.0's use cases moved it: queued, live, then finished or failed; imports inserted as they were. */
async function seedRecords(pool: pg.Pool, at: At): Promise<void> {
  const { karaoke, piano, zelda, nightChat, camera } = RECORDS;
  for (const record of [karaoke, zelda, nightChat, camera]) await insertRecord(pool, record, 'upcoming', at);
  await insertRecord(pool, piano, 'finished', at);
  for (const record of [karaoke, nightChat]) {
    await pool.query(`update livestreams set status = 'live', started_at = $2, updated_at = $2 where id = $1`, [record.id, at(record.scheduledIn + 0.25)]);
  }
  const { fileSizeBytes, lengthSeconds } = karaoke.archive;
  await pool.query(
    `update livestreams set status = 'finished', ended_at = $2, updated_at = $2, file_size_bytes = $3, length_seconds = $4,
       video_key = $5, log_key = $6, thumbnail_key = $7, sha256 = $8
     where id = $1`,
    [
      karaoke.id,
      at(karaoke.scheduledIn + 2.25),
      fileSizeBytes,
      lengthSeconds,
      `archives/${karaoke.id}/${karaoke.id}.mp4`,
      `archives/${karaoke.id}/${karaoke.id}.log`,
      `archives/${karaoke.id}/${karaoke.id}.jpg`,
      'ab'.repeat(32),
    ],
  );
  await pool.query(`update livestreams set status = 'failed', failure_reason = $2, updated_at = $3 where id = $1`, [
    camera.id,
    camera.failureReason,
    at(camera.scheduledIn + 0.5),
  ]);
}

/** A record with its submitters in one transaction, as 0.6.0's repository wrote them (the queued event's snapshot holds them). */
async function insertRecord(pool: pg.Pool, record: SeedRecord, status: SeedRecord['status'], at: At): Promise<void> {
  const imported = status === 'finished' ? record.archive : undefined;
  await inTransaction(pool, async (client) => {
    await client.query(
      `insert into livestreams (id, platform, source_url, status, title, channel_name, channel_id, thumbnail_url, scheduled_start_at,
         file_size_bytes, length_seconds, external_archive_url, requested_quality, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)`,
      [
        record.id,
        record.platform,
        record.sourceUrl,
        status,
        record.title,
        record.channel.name,
        record.channel.id,
        record.platform === 'youtube' ? `https://i.ytimg.com/vi/${record.id}/maxresdefault.jpg` : null,
        at(record.scheduledIn),
        imported?.fileSizeBytes ?? null,
        imported?.lengthSeconds ?? null,
        imported ? `https://archive.example.org/${record.id}.mp4` : null,
        record.id === RECORDS.nightChat.id ? '1080p' : null,
        at(Math.min(record.scheduledIn, 0) - 1),
      ],
    );
    for (const [n, submitter] of record.submitters.entries()) {
      const [provider, userId] = submitter.split('/') as [string, string];
      await client.query('insert into livestream_submitters (livestream_id, provider, user_id, submitted_at) values ($1, $2, $3, $4)', [
        record.id,
        provider,
        userId,
        at(Math.min(record.scheduledIn, 0) - 1 + n * 0.1),
      ]);
    }
  });
}

/** The finished record's capture as 0.6.0's finalize left it: segments, a gap, its chunks in the store, the end of its log. */
async function seedFinishedCapture(pool: pg.Pool, at: At): Promise<void> {
  const { karaoke } = RECORDS;
  const ended = at(karaoke.scheduledIn + 2.25);
  await pool.query(
    `insert into captures (livestream_id, playlist_url, state, end_reason, heartbeat_at, next_sequence, current_part, started_at, ended_at)
     values ($1, $2, 'finalized', 'endlist', $3, 22, 2, $4, $3)`,
    [karaoke.id, `https://manifest.googlevideo.com/api/manifest/hls_playlist/id/${karaoke.id}/index.m3u8`, ended, at(karaoke.scheduledIn + 0.25)],
  );
  const { parts, gap, segmentSeconds } = KARAOKE_CAPTURE;
  for (const { part, first, count, bytesEach } of parts) {
    await pool.query(
      `insert into capture_segments (livestream_id, sequence, part, end_offset, duration_seconds)
       select $1, $2 + n, $3, (n + 1) * $4::bigint, $5 from generate_series(0, $6 - 1) n`,
      [karaoke.id, first, part, bytesEach, segmentSeconds, count],
    );
  }
  await insertGap(pool, karaoke.id, gap);
  const key = (part: number, start: number) => `captures/${karaoke.id}/part-${String(part).padStart(4, '0')}/${String(start).padStart(14, '0')}-n0nce${part}`;
  await pool.query(
    `insert into capture_chunks (livestream_id, part, start_offset, end_offset, object_key) values
       ($1, 1, 0, 5000000, $2), ($1, 1, 5000000, 10000000, $3), ($1, 2, 0, 9000000, $4)`,
    [karaoke.id, key(1, 0), key(1, 5_000_000), key(2, 0)],
  );
  await pool.query(`insert into capture_log_lines (livestream_id, logged_at, line) values ($1, $2, '[hls] endlist: capture ended')`, [karaoke.id, ended]);
}

/** The live record's capture, held by a worker: segments but a lost pair, a chunk stored and the next being uploaded, its log. */
async function seedLiveCapture(pool: pg.Pool, at: At): Promise<void> {
  const { nightChat } = RECORDS;
  const live = NIGHT_CHAT_CAPTURE;
  await pool.query(
    `insert into captures (livestream_id, playlist_url, state, worker_id, heartbeat_at, next_sequence, current_part, started_at)
     values ($1, $2, 'capturing', 'worker-a:4242', $3, $4, 1, $5)`,
    [
      nightChat.id,
      `https://manifest.googlevideo.com/api/manifest/hls_playlist/id/${nightChat.id}/index.m3u8`,
      at(-0.001),
      live.next,
      at(nightChat.scheduledIn + 0.25),
    ],
  );
  await pool.query(
    `insert into capture_segments (livestream_id, sequence, part, end_offset, duration_seconds)
     select $1, sequence, 1, row_number() over (order by sequence) * $2::bigint, $3
     from generate_series($4::bigint, $5::bigint - 1) sequence where sequence not between $6 and $7`,
    [nightChat.id, live.bytesEach, live.segmentSeconds, live.first, live.next, live.lost.firstSequence, live.lost.lastSequence],
  );
  await insertGap(pool, nightChat.id, live.lost);
  const key = (start: number) => `captures/${nightChat.id}/part-0001/${String(start).padStart(14, '0')}-l1ve`;
  await pool.query(`insert into capture_chunks (livestream_id, part, start_offset, end_offset, object_key) values ($1, 1, 0, 10000000, $2)`, [
    nightChat.id,
    key(0),
  ]);
  await pool.query('insert into storage_uploads (upload_id, object_key, started_at) values ($1, $2, $3)', ['upload-2f9c', key(10_000_000), at(-0.01)]);
  await pool.query(`insert into capture_log_lines (livestream_id, logged_at, line) select $1, $2, unnest($3::text[])`, [
    nightChat.id,
    at(-0.01),
    live.logLines,
  ]);
}

async function insertGap(
  pool: pg.Pool,
  livestreamId: string,
  gap: { firstSequence: number; lastSequence: number; seconds: number; reason: string },
): Promise<void> {
  await pool.query(`insert into capture_gaps (livestream_id, first_sequence, last_sequence, seconds, reason) values ($1, $2, $3, $4, $5)`, [
    livestreamId,
    gap.firstSequence,
    gap.lastSequence,
    gap.seconds,
    gap.reason,
  ]);
}

/** An imported record an admin took down, as 0.6.0's takedown did: the action kept with the record, then the row deleted. */
async function takeDown(pool: pg.Pool, record: SeedRecord, at: At): Promise<void> {
  await insertRecord(pool, record, 'finished', at);
  await inTransaction(pool, async (client) => {
    await client.query(
      `insert into admin_actions (action, livestream_id, admin, reason, record, acted_at) values ('takedown', $1, $2, 'copyright claim', $3, $4)`,
      [record.id, MIKA.submitter, JSON.stringify({ title: record.title, sourceUrl: record.sourceUrl, submitters: record.submitters }), at(-3)],
    );
    await client.query('delete from livestreams where id = $1', [record.id]);
  });
}

/**
 * The built-in engine's index as 0.6.0's drain left it: a document per record (the record as the
 * public saw it), the outbox emptied, and the search key handed to clients.
 */
async function seedSearch(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<Record<string, unknown>>(
    `select l.*, array(select s.provider || '/' || s.user_id from livestream_submitters s where s.livestream_id = l.id order by s.id) as submitters
     from livestreams l order by id`,
  );
  // 0.6.0's builtin-index.ts upsert, unchanged
  await pool.query(
    `insert into search_documents as s (id, document, title, channel_name, channel_id, status, finished, platform,
       scheduled_start_at, length_seconds, file_size_bytes)
     select d->>'id', t::json, d->>'title', d->>'channelName', d->>'channelId', d->>'status', (d->>'finished')::boolean,
       d->>'platform', (d->>'scheduledStart')::timestamptz, (d->>'length')::integer, (d->>'fileSizeBytes')::bigint
     from unnest($1::text[]) t, lateral (select t::jsonb as d) j`,
    [rows.map((row) => JSON.stringify(documentOf(row)))],
  );
  await pool.query('delete from search_outbox');
  const searchKey = randomBytes(32).toString('base64url');
  await pool.query('insert into search_settings (search_key) values ($1)', [searchKey]);
  return searchKey;
}

/** A record as 0.6.0's presenter showed it to the public (KURA_PUBLIC_URL http://kura.test). */
function documentOf(row: Record<string, unknown>): Record<string, unknown> {
  const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null);
  const id = row.id as string;
  const download = row.video_key ? `http://kura.test/api/download/${id}/video` : (row.external_archive_url as string | null);
  return {
    id,
    submitters: row.submitters,
    scheduledStart: iso(row.scheduled_start_at),
    finished: row.status === 'finished',
    title: row.title,
    channelName: row.channel_name,
    channelId: row.channel_id,
    thumbnail: row.thumbnail_key ? `http://kura.test/api/download/${id}/thumbnail` : (row.thumbnail_url ?? ''),
    status: row.status,
    platform: row.platform,
    sourceUrl: row.source_url,
    startedAt: iso(row.started_at),
    endedAt: iso(row.ended_at),
    ...(download ? { downloadUrl: download, fileSizeBytes: Number(row.file_size_bytes), length: row.length_seconds } : {}),
    ...(row.video_key ? { integrity: row.integrity } : {}),
  };
}

/** What happened to the archives since: the karaoke verified (which queues its search document again) and downloaded. */
async function seedArchiveFacts(pool: pg.Pool, at: At): Promise<void> {
  const { karaoke, piano } = RECORDS;
  await pool.query(`update livestreams set integrity = 'ok' where id = $1`, [karaoke.id]);
  await pool.query('insert into archive_checks (livestream_id, verified_at, hashed_at) values ($1, $2, $3)', [karaoke.id, at(-1), at(-20)]);
  await pool.query('insert into livestream_downloads (livestream_id, count) values ($1, 7), ($2, 2)', [karaoke.id, piano.id]);
}

async function seedFollowHistory(pool: pg.Pool, at: At): Promise<void> {
  await pool.query(
    `insert into follow_sightings (follow_id, stream_id, title, verdict, reason, seen_at, recheck_at) values
       ($1, $2, 'Late night chat', 'queued', 'live now', $3, null),
       ($1, 'mEmbers0007', 'Members karaoke', 'skipped', 'members-only (the follow skips them)', $4, null),
       ($1, 'pReview0008', 'Next week: a preview', 'later', 'scheduled in 6 days', $5, $6),
       ($7, $8, null, 'queued', 'the playlist answered', $9, null)`,
    [FOLLOWS.owls, RECORDS.nightChat.id, at(-1.5), at(-24), at(-2), at(22), FOLLOWS.camera, RECORDS.camera.id, at(-5.5)],
  );
  // the camera's playlist failed for an hour: 0.6.0's check wrote the event with its outcome (migration 0016)
  await pool.query(`select enqueue_follow_event('follow.unhealthy', f) from follows f where f.id = $1`, [FOLLOWS.camera]);
}

/**
 * Deliveries as 0.6.0's worker left them: the instance webhook's delivered but for the latest
 * event of each record (and the follow's), the Discord one's delivered, and the personal one's
 * given up, which disabled it. A webhook.test event was sent once, and delivered.
 */
async function settleDeliveries(pool: pg.Pool, at: At): Promise<void> {
  const { rows } = await pool.query<{ id: string }>(`insert into events (type, data, occurred_at) values ('webhook.test', $1, $2) returning id::text`, [
    JSON.stringify({ webhookId: WEBHOOKS.all, message: 'A test event from Kura.', sentAt: at(-200).toISOString() }),
    at(-200),
  ]);
  await pool.query('insert into webhook_deliveries (webhook_id, event_id, created_at) values ($1, $2, $3)', [WEBHOOKS.all, rows[0]?.id, at(-200)]);
  const done = `attempts = 1, last_status_code = $2, last_duration_ms = 84, first_attempt_at = $3, last_attempt_at = $3, delivered_at = $3`;
  await pool.query(
    `update webhook_deliveries d set ${done}
     where d.webhook_id = $1 and d.event_id < (select max(p.event_id) from webhook_deliveries p where p.webhook_id = d.webhook_id and p.record_key = d.record_key)`,
    [WEBHOOKS.all, 200, at(-0.5)],
  );
  await pool.query(`update webhook_deliveries d set ${done} where d.webhook_id = $1 and d.record_key is null`, [WEBHOOKS.all, 200, at(-200)]);
  await pool.query(`update webhook_deliveries set ${done} where webhook_id = $1`, [WEBHOOKS.discord, 204, at(-28)]);
  await pool.query(
    `update webhook_deliveries set attempts = 12, last_error = 'connect ECONNREFUSED 203.0.113.7:443', last_duration_ms = 3,
       first_attempt_at = $2, last_attempt_at = $3, given_up_at = $3
     where webhook_id = $1`,
    [WEBHOOKS.mine, at(-30), at(-0.2)],
  );
  await pool.query(
    `update webhooks set failing_since = $2, disabled_at = $3,
       disabled_reason = 'Every delivery failed for 5 days (last: connect ECONNREFUSED 203.0.113.7:443).'
     where id = $1`,
    [WEBHOOKS.mine, at(-125), at(-0.2)],
  );
}

/** A job as pg-boss keeps it, in the words both pg-boss 10's and 12's job tables have. */
export interface PgBossJobRow {
  id: string;
  name: string;
  key: string;
  state: string;
  startAfter: Date;
  retryCount: number;
}

/** The jobs of `schema`'s job table, by queue and key. */
export async function pgBossJobs(pool: pg.Pool, schema: 'pgboss'): Promise<PgBossJobRow[]> {
  const { rows } = await pool.query<PgBossJobRow>(
    `select id, name, singleton_key as key, state::text as state, start_after as "startAfter", retry_count as "retryCount"
     from ${schema}.job order by name, singleton_key`,
  );
  return rows;
}

/**
 * The job queue as Kura 0.6.0 (and 0.7.0) left it, on pg-boss 10.4.2 itself (schema version 24):
 * the queues of Kura's catalogue with their policies, the notify trigger on the job table, and the
 * jobs of an instance in use. `zelda`'s watch is due at its stream's time (hours away), the live
 * record's capture failed once and is to be retried, its chat capture was running when the worker
 * stopped, a webhook drain waits; an index job ended, and 0.6's lifecycle sweep (a job then) waits
 * in a queue this release no longer has. Resolves with the jobs as pg-boss 10 holds them.
 */
export async function seedPgBoss10Jobs(url: string, pool: pg.Pool): Promise<PgBossJobRow[]> {
  const boss = new PgBoss10({ connectionString: url, max: 2, schedule: false, supervise: false });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    for (const { name, oneWaitingPerKey, ...policy } of queueSpecs())
      await boss.createQueue(name, { name, ...policy, policy: oneWaitingPerKey ? 'short' : 'standard' });
    await boss.createQueue('sweep-lifecycle', { name: 'sweep-lifecycle' });
    await installJobNotify({ executeSql: (text, values) => pool.query(text, values) }, JOB_NOTIFY_CHANNEL);
    const { zelda, nightChat } = RECORDS;
    const at = new Date(Date.now() + 19 * 3_600_000);
    await boss.send('watch-stream', { livestreamId: zelda.id }, { singletonKey: zelda.id, startAfter: at });
    await boss.send('capture-stream', { livestreamId: nightChat.id }, { singletonKey: nightChat.id, singletonSeconds: 10 });
    const [capture] = await boss.fetch('capture-stream');
    await boss.fail('capture-stream', capture!.id, { message: 'the stream stalled' });
    await boss.send('capture-chat', { livestreamId: nightChat.id }, { singletonKey: nightChat.id, singletonSeconds: 10 });
    await boss.fetch('capture-chat'); // the worker that took it stopped
    await boss.send('deliver-webhooks', {}, { singletonKey: 'webhooks' });
    await boss.send('index-records', {}, { singletonKey: 'search', singletonSeconds: 5 });
    const [index] = await boss.fetch('index-records');
    await boss.complete('index-records', index!.id);
    await boss.send('sweep-lifecycle', {}, { singletonKey: 'sweep' });
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
  return pgBossJobs(pool, 'pgboss');
}
