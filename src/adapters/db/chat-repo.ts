// Decisions: docs/decisions/0113-chat-capture-job.md
import type pg from 'pg';
import type { ChatBadge, ChatMessage, ChatState } from '../../core/chat/chat.js';
import type { ChatLog } from '../../core/chat/ports.js';

interface MessageRow {
  id: string;
  sent_at: Date;
  author_name: string;
  author_channel_id: string;
  author_badges: string[];
  body: string;
  emojis: ChatMessage['emojis'] | null;
  paid_amount: string | null;
  paid_currency: string | null;
  paid_text: string | null;
}

/** Messages per page of the archive's chat file. */
const PAGE = 5000;

/**
 * The archive's 0 s in wall-clock time, for the stream `id` (an SQL expression). Once the chat is
 * filed (its messages deleted, decision 0112), the one fixed then. Before: a capture of fragments
 * numbered from the broadcast's first (fragment-tracks.ts) knows where each video fragment ends on
 * the archive's timeline, so its latest 30 tell it: each fetched less the media up to its end, the
 * least of them the one fetched most promptly (at the live edge, not while catching up on what
 * came before Kura looked). A capture of a playlist: the same over the first part's first 30
 * segments (the first playlist lists several at once). Before any segment, the capture's start.
 */
export function archiveStartOf(id: string): string {
  return `coalesce(
  (select archive_start from chat_captures where livestream_id = ${id}),
  (select min(f.fetched_at - make_interval(secs => (f.sequence / 2 + 1) * (c.fragment_formats->>'fragmentSeconds')::float8)) from (
     select sequence, fetched_at from capture_segments
     where livestream_id = ${id} and sequence % 2 = 0
     order by sequence desc limit 30) f
   join captures c on c.livestream_id = ${id} and c.fragment_formats is not null),
  (select min(s.fetched_at - make_interval(secs => s.played)) from (
     select f.fetched_at, sum(f.duration_seconds) over (order by f.sequence) as played from (
       select sequence, fetched_at, duration_seconds from capture_segments
       where livestream_id = ${id} and part = (select min(part) from capture_segments where livestream_id = ${id})
       order by sequence limit 30) f) s),
  (select started_at from captures where livestream_id = ${id}))`;
}

const ARCHIVE_START = archiveStartOf('$1');

/** Captured chats in PostgreSQL (migration 0019). */
export function createChatRepo(pool: pg.Pool): ChatLog {
  return { ...chatCaptures(pool), ...chatReads(pool) };
}

/** The chat capture: which worker holds it, the messages it stores, and how it ended. */
function chatCaptures(pool: pg.Pool): Pick<ChatLog, 'claim' | 'append' | 'release' | 'finish' | 'state'> {
  return {
    async claim(livestreamId, workerId, staleAfterSeconds) {
      const { rowCount } = await pool.query(
        `insert into chat_captures as c (livestream_id, worker_id, heartbeat_at) values ($1, $2, now())
         on conflict (livestream_id) do update set worker_id = excluded.worker_id, heartbeat_at = now()
           where c.state = 'capturing' and (c.worker_id is null or c.worker_id = excluded.worker_id
             or c.heartbeat_at < now() - make_interval(secs => $3) or c.worker_id in (select worker_id from gone_workers))`,
        [livestreamId, workerId, staleAfterSeconds],
      );
      return rowCount === 1;
    },

    async append(livestreamId, workerId, messages) {
      // one statement: the lease is renewed and the messages stored only while this worker holds it
      const { rows } = await pool.query<{ held: boolean; capture: string | null }>(
        `with lease as (
           update chat_captures set heartbeat_at = now()
           where livestream_id = $1 and worker_id = $2 and state = 'capturing' returning livestream_id
         ), stored as (
           insert into chat_messages (livestream_id, id, sent_at, author_name, author_channel_id, author_badges, body, emojis, paid_amount, paid_currency, paid_text)
           select $1, m.id, m.sent_at, m.name, m.channel, string_to_array(m.badges, ','), m.body, m.emojis::jsonb, m.amount, m.currency, m.paid
           from unnest($3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::numeric[], $11::text[], $12::text[])
             as m(id, sent_at, name, channel, badges, body, emojis, amount, currency, paid)
           where exists (select 1 from lease)
           on conflict do nothing
         )
         select exists (select 1 from lease) as held, (select state from captures where livestream_id = $1) as capture`,
        [
          livestreamId,
          workerId,
          messages.map((m) => m.id),
          messages.map((m) => m.sentAt),
          messages.map((m) => m.author.name),
          messages.map((m) => m.author.channelId),
          messages.map((m) => m.author.badges.join(',')),
          messages.map((m) => m.text),
          messages.map((m) => (m.emojis.length > 0 ? JSON.stringify(m.emojis) : null)),
          messages.map((m) => m.paid?.amount ?? null),
          messages.map((m) => m.paid?.currency ?? null),
          messages.map((m) => m.paid?.text ?? null),
        ],
      );
      const row = rows[0];
      if (!row?.held) return 'lost';
      return row.capture === 'capturing' ? 'capturing' : 'over';
    },

    async release(livestreamId, workerId, why) {
      await pool.query(`update chat_captures set worker_id = null, detail = coalesce($3, detail) where livestream_id = $1 and worker_id = $2`, [
        livestreamId,
        workerId,
        why ?? null,
      ]);
    },

    async finish(livestreamId, state, detail) {
      await pool.query(`update chat_captures set state = $2, detail = coalesce($3, detail), worker_id = null where livestream_id = $1`, [
        livestreamId,
        state,
        detail ?? null,
      ]);
    },

    async state(livestreamId) {
      const { rows } = await pool.query<{ state: ChatState; held: boolean; detail: string | null; filedAt: Date | null }>(
        `select state, worker_id is not null as held, detail, filed_at as "filedAt" from chat_captures where livestream_id = $1`,
        [livestreamId],
      );
      return rows[0] ?? null;
    },
  };
}

/** The stored messages, as the archive's timeline places them. */
function chatReads(pool: pg.Pool): Pick<ChatLog, 'archiveStart' | 'window' | 'perMinute' | 'all' | 'count'> {
  const archiveStart = async (livestreamId: string): Promise<Date | null> => {
    const { rows } = await pool.query<{ start: Date | null }>(`select ${ARCHIVE_START} as start`, [livestreamId]);
    return rows[0]?.start ?? null;
  };
  return {
    archiveStart,

    async window(livestreamId, range) {
      const start = await archiveStart(livestreamId);
      if (start === null) return null;
      const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
      const { rows } = await pool.query<MessageRow>(
        `select * from chat_messages where livestream_id = $1 and sent_at >= $2 and sent_at < $3 order by sent_at, id limit $4`,
        [livestreamId, at(range.from), at(range.to), range.limit + 1],
      );
      return { archiveStart: start, messages: rows.slice(0, range.limit).map(toMessage), truncated: rows.length > range.limit };
    },

    async perMinute(livestreamId) {
      const { rows } = await pool.query<{ minute: number; n: number }>(
        `with start as (select ${ARCHIVE_START} as at)
         select floor(extract(epoch from m.sent_at - start.at) / 60)::int as minute, count(*)::int as n
         from chat_messages m, start where m.livestream_id = $1 and m.sent_at >= start.at group by 1 order by 1`,
        [livestreamId],
      );
      const counts = new Array<number>(rows.length > 0 ? (rows.at(-1)?.minute ?? 0) + 1 : 0).fill(0);
      for (const row of rows) counts[row.minute] = row.n;
      return counts;
    },

    async *all(livestreamId) {
      let after: { sentAt: Date; id: string } | null = null;
      for (;;) {
        const { rows }: { rows: MessageRow[] } = await pool.query<MessageRow>(
          `select * from chat_messages where livestream_id = $1 and ($2::timestamptz is null or (sent_at, id) > ($2, $3))
           order by sent_at, id limit ${PAGE}`,
          [livestreamId, after?.sentAt ?? null, after?.id ?? null],
        );
        if (rows.length > 0) yield rows.map(toMessage);
        if (rows.length < PAGE) return;
        const last = rows[rows.length - 1] as MessageRow;
        after = { sentAt: last.sent_at, id: last.id };
      }
    },

    async count(livestreamId) {
      const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from chat_messages where livestream_id = $1`, [livestreamId]);
      return rows[0]?.n ?? 0;
    },
  };
}

function toMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    sentAt: row.sent_at,
    author: { name: row.author_name, channelId: row.author_channel_id, badges: row.author_badges as ChatBadge[] },
    text: row.body,
    emojis: row.emojis ?? [],
    paid: row.paid_amount === null ? null : { amount: Number(row.paid_amount), currency: row.paid_currency ?? '', text: row.paid_text ?? '' },
  };
}
