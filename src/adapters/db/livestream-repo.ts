// Decisions: docs/decisions/0011-import.md, docs/decisions/0021-lifecycle-table.md
import type pg from 'pg';
import type { LivestreamChange, LivestreamInput } from '../../core/records/livestream.js';
import type { LivestreamStatus } from '../../core/vocabulary.js';
import { AppError } from '../../core/errors.js';
import { applyEvent } from '../../core/records/lifecycle.js';
import type { GrowthMonth, LivestreamRepo, LivestreamTotals } from '../../core/records/ports.js';
import { historySql } from './history-sql.js';
import { RECORD_COLUMNS, toLivestream, type LivestreamRow } from './livestream-row.js';
import { inTransaction } from './pool.js';

/** Rows written per statement during an import. */
const UPSERT_BATCH = 5_000;

/** Livestream records in PostgreSQL. */
export function createLivestreamRepo(pool: pg.Pool): LivestreamRepo {
  return { ...livestreamLookups(pool), ...livestreamTotals(pool), ...livestreamWrites(pool) };
}

/** Records read: the history and queue pages, and one or several by source or id. */
function livestreamLookups(
  pool: pg.Pool,
): Pick<LivestreamRepo, 'listHistory' | 'listQueue' | 'findActiveBySource' | 'findLatestBySource' | 'findById' | 'findManyById'> {
  return {
    async listHistory(slice, total) {
      const { name, sql, params, reversed } = historySql(slice, total);
      // named: prepared once per connection, so a page read skips planning
      const { rows } = await pool.query<LivestreamRow>({ name, text: sql, values: params });
      const records = rows.map(toLivestream);
      return reversed ? records.reverse() : records;
    },

    async listQueue(limit, channelId = null) {
      // a channel's queue reads the livestreams_channel_all index (channel_id, scheduled_start_at, id)
      const { rows } = await pool.query<LivestreamRow>(
        `select ${RECORD_COLUMNS} from livestreams l where l.status in ('upcoming', 'live')${channelId === null ? '' : ' and l.channel_id = $2'}
         order by l.scheduled_start_at asc, l.id asc limit $1`,
        channelId === null ? [limit] : [limit, channelId],
      );
      return rows.map(toLivestream);
    },

    async findActiveBySource(sourceUrl) {
      const { rows } = await pool.query<LivestreamRow>(
        `select ${RECORD_COLUMNS} from livestreams l where l.source_url = $1 and l.status in ('upcoming', 'live')
         order by l.created_at desc limit 1`,
        [sourceUrl],
      );
      return rows[0] ? toLivestream(rows[0]) : null;
    },

    async findLatestBySource(sourceUrl) {
      const { rows } = await pool.query<LivestreamRow>(
        `select ${RECORD_COLUMNS} from livestreams l where l.source_url = $1 order by l.created_at desc limit 1`,
        [sourceUrl],
      );
      return rows[0] ? toLivestream(rows[0]) : null;
    },

    async findById(id) {
      const { rows } = await pool.query<LivestreamRow>(`select ${RECORD_COLUMNS} from livestreams l where l.id = $1`, [id]);
      return rows[0] ? toLivestream(rows[0]) : null;
    },

    async findManyById(ids) {
      const { rows } = await pool.query<LivestreamRow>(`select ${RECORD_COLUMNS} from livestreams l where l.id = any($1::text[])`, [ids]);
      return rows.map(toLivestream);
    },
  };
}

/** The archive's counts, a channel's and month by month. */
function livestreamTotals(pool: pg.Pool): Pick<LivestreamRepo, 'totals' | 'channelTotal' | 'growth'> {
  return {
    async totals() {
      const { rows } = await pool.query<Record<string, number>>({ name: 'livestream-totals', text: 'select * from livestream_totals' });
      const row = rows[0] ?? {};
      return {
        all: row.all_count ?? 0,
        finished: row.finished_count ?? 0,
        counted: row.counted_count ?? 0,
        totalFileSizeBytes: row.total_file_size ?? 0,
        totalLengthSeconds: row.total_length ?? 0,
        uniqueChannels: row.unique_channels ?? 0,
      } satisfies LivestreamTotals;
    },

    async channelTotal(channelId, includeUnfinished) {
      const { rows } = await pool.query<{ total: string }>({
        name: 'livestream-channel-total',
        text: `select case when $2 then all_count else finished_count end as total from channel_totals where channel_id = $1`,
        values: [channelId, includeUnfinished],
      });
      return Number(rows[0]?.total ?? 0);
    },

    async growth() {
      const { rows } = await pool.query<GrowthMonth>({
        name: 'livestream-growth',
        text: `select to_char(date_trunc('month', scheduled_start_at at time zone 'UTC'), 'YYYY-MM') as month,
                      count(*)::int as "count",
                      coalesce(sum(file_size_bytes), 0)::float8 as "fileSizeBytes",
                      coalesce(sum(length_seconds), 0)::float8 as "lengthSeconds"
                 from livestreams where status = 'finished' group by 1 order by 1`,
      });
      return rows;
    },
  };
}

/** Records written: a change, a lifecycle event, a download counted, an import. */
function livestreamWrites(pool: pg.Pool): Pick<LivestreamRepo, 'update' | 'transition' | 'countDownload' | 'upsertMany'> {
  return {
    async update(id, change) {
      await updateRecord(pool, id, change);
    },

    transition(id, event) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ status: LivestreamStatus }>('select status from livestreams where id = $1 for update', [id]);
        if (rows[0] === undefined) throw new AppError('not_found', 'livestream_not_found', `No livestream has the id "${id}".`);
        await updateRecord(client, id, applyEvent(rows[0].status, event));
        // finalize's archive and its capture's end are one fact: a reader never sees a finished
        // record whose capture is not finalized or kept (the chunks are deleted only after this commit);
        // the state clauses are `finalized`/`finalized_keeping` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts)
        if (event.type === 'archived') {
          await client.query(
            `update captures set state = case when $2::timestamptz is null then 'finalized' else 'kept' end, kept_until = $2, worker_id = null
             where livestream_id = $1 and state = 'ended'`,
            [id, event.keptUntil ?? null],
          );
        }
        // so are a record going on and its kept capture recording again (`reopened`): from its next fragment, on any worker
        if (event.type === 'continued') {
          const { rowCount } = await client.query(
            `update captures set state = 'capturing', kept_until = null, end_reason = null, ended_at = null, worker_id = null, stop_requested = null
             where livestream_id = $1 and state = 'kept'`,
            [id],
          );
          if (rowCount !== 1) throw new AppError('conflict', 'livestream_state_conflict', `${id}'s capture was not kept: it cannot go on recording.`);
        }
        const { rows: records } = await client.query<LivestreamRow>(`select ${RECORD_COLUMNS} from livestreams l where l.id = $1`, [id]);
        return toLivestream(records[0] as LivestreamRow);
      });
    },

    async countDownload(id) {
      await pool.query(
        `insert into livestream_downloads as d (livestream_id, count) values ($1, 1)
         on conflict (livestream_id) do update set count = d.count + 1`,
        [id],
      );
    },

    upsertMany(records) {
      return inTransaction(pool, async (client) => {
        let inserted = 0;
        for (let start = 0; start < records.length; start += UPSERT_BATCH) {
          const batch = records.slice(start, start + UPSERT_BATCH);
          inserted += await upsertRecords(client, batch);
          await appendSubmitters(client, batch);
        }
        return { inserted, updated: records.length - inserted };
      });
    },
  };
}

/** Writes the columns `change` names (and `updated_at`). */
async function updateRecord(db: pg.Pool | pg.PoolClient, id: string, change: LivestreamChange): Promise<void> {
  const sets: string[] = ['updated_at = now()'];
  const values: unknown[] = [id];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (change.status !== undefined) set('status', change.status);
  if (change.failureReason !== undefined) set('failure_reason', change.failureReason);
  if (change.startedAt !== undefined) set('started_at', change.startedAt);
  if (change.endedAt !== undefined) set('ended_at', change.endedAt);
  if (change.scheduledStart !== undefined) set('scheduled_start_at', change.scheduledStart);
  if (change.title !== undefined) set('title', change.title);
  if (change.channelName !== undefined) set('channel_name', change.channelName);
  if (change.thumbnailUrl !== undefined) set('thumbnail_url', change.thumbnailUrl);
  if (change.archive !== undefined) {
    set('file_size_bytes', change.archive.fileSizeBytes);
    set('length_seconds', change.archive.lengthSeconds);
    set('video_key', change.archive.videoKey);
    set('log_key', change.archive.logKey);
    set('thumbnail_key', change.archive.thumbnailKey);
    set('sha256', change.archive.sha256);
  }
  await db.query(`update livestreams set ${sets.join(', ')} where id = $1`, values);
}

async function upsertRecords(client: pg.PoolClient, batch: readonly LivestreamInput[]): Promise<number> {
  const column = <T>(pick: (r: LivestreamInput) => T) => batch.map(pick);
  const { rows } = await client.query<{ inserted: boolean }>(
    `insert into livestreams as l (id, platform, source_url, status, failure_reason, title, channel_name, channel_id,
       thumbnail_url, scheduled_start_at, started_at, ended_at, file_size_bytes, length_seconds,
       video_key, log_key, thumbnail_key, sha256, external_archive_url, requested_quality)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
       $9::text[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::bigint[], $14::integer[],
       $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[])
     on conflict (id) do update set
       platform = excluded.platform, source_url = excluded.source_url, status = excluded.status,
       failure_reason = excluded.failure_reason, title = excluded.title, channel_name = excluded.channel_name,
       channel_id = excluded.channel_id, thumbnail_url = excluded.thumbnail_url,
       scheduled_start_at = excluded.scheduled_start_at, started_at = excluded.started_at, ended_at = excluded.ended_at,
       file_size_bytes = coalesce(excluded.file_size_bytes, l.file_size_bytes),
       length_seconds = coalesce(excluded.length_seconds, l.length_seconds),
       video_key = coalesce(excluded.video_key, l.video_key), log_key = coalesce(excluded.log_key, l.log_key),
       thumbnail_key = coalesce(excluded.thumbnail_key, l.thumbnail_key), sha256 = coalesce(excluded.sha256, l.sha256),
       external_archive_url = coalesce(excluded.external_archive_url, l.external_archive_url),
       requested_quality = coalesce(excluded.requested_quality, l.requested_quality),
       updated_at = now()
     returning (xmax = 0) as inserted`,
    [
      column((r) => r.id),
      column((r) => r.platform),
      column((r) => r.sourceUrl),
      column((r) => r.status),
      column((r) => r.failureReason),
      column((r) => r.title),
      column((r) => r.channelName),
      column((r) => r.channelId),
      column((r) => r.thumbnailUrl),
      column((r) => r.scheduledStart.toISOString()),
      column((r) => r.startedAt?.toISOString() ?? null),
      column((r) => r.endedAt?.toISOString() ?? null),
      column((r) => r.archive?.fileSizeBytes ?? null),
      column((r) => r.archive?.lengthSeconds ?? null),
      column((r) => r.archive?.videoKey ?? null),
      column((r) => r.archive?.logKey ?? null),
      column((r) => r.archive?.thumbnailKey ?? null),
      column((r) => r.archive?.sha256 ?? null),
      column((r) => r.archive?.externalUrl ?? null),
      column((r) => r.requestedQuality),
    ],
  );
  return rows.filter((r) => r.inserted).length;
}

/** Adds submitters not yet on each record, keeping the given order after the existing ones. */
async function appendSubmitters(client: pg.PoolClient, batch: readonly LivestreamInput[]): Promise<void> {
  const ids: string[] = [];
  const providers: string[] = [];
  const userIds: string[] = [];
  for (const record of batch) {
    for (const submitter of record.submitters) {
      const slash = submitter.indexOf('/');
      ids.push(record.id);
      providers.push(submitter.slice(0, slash));
      userIds.push(submitter.slice(slash + 1));
    }
  }
  if (ids.length === 0) return;
  await client.query(
    `insert into livestream_submitters (livestream_id, provider, user_id)
     select id, provider, user_id from unnest($1::text[], $2::text[], $3::text[]) with ordinality as s(id, provider, user_id, n)
     order by n
     on conflict (livestream_id, provider, user_id) do nothing`,
    [ids, providers, userIds],
  );
}
