// Decisions: docs/decisions/0058-webhook-delivery.md
import type pg from 'pg';
import type { AttemptOutcome, WebhookRepo } from '../../core/notifications/ports.js';
import type { ClaimedDelivery, Delivery, EventType, OutboxEvent, Webhook } from '../../core/notifications/webhook.js';
import { followFromSnapshot } from './follow-row.js';
import { toLivestream, type LivestreamRow } from './livestream-row.js';
import { inTransaction, insertBelowCap } from './pool.js';

/** `d` is the earliest undelivered delivery of its webhook and record: later ones wait their turn. */
const HEAD_OF_ITS_RECORD = `not exists (
  select 1 from webhook_deliveries p
  where p.webhook_id = d.webhook_id and p.record_key = d.record_key and p.event_id < d.event_id
    and p.delivered_at is null and p.given_up_at is null)`;

const WEBHOOK_COLUMNS = `id, url, events, channel_id, created_by, owner, created_at, failing_since, disabled_at, disabled_reason`;

interface WebhookRow {
  id: string;
  url: string;
  events: EventType[] | null;
  channel_id: string | null;
  created_by: string;
  owner: string | null;
  created_at: Date;
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events,
  channelId: row.channel_id,
  createdBy: row.created_by,
  owner: row.owner,
  createdAt: row.created_at,
  failingSince: row.failing_since,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
});

const SNAPSHOT_DATES = ['scheduled_start_at', 'started_at', 'ended_at', 'created_at', 'updated_at', 'verified_at', 'takedown_requested_at'] as const;

/** A record's row as the outbox trigger kept it (jsonb: dates as text) back as the core's record. */
function fromSnapshot(snapshot: Record<string, unknown>): OutboxEvent['record'] {
  const row = { ...snapshot } as Record<string, unknown>;
  for (const column of SNAPSHOT_DATES) row[column] = typeof row[column] === 'string' ? new Date(row[column]) : null;
  return toLivestream(row as unknown as LivestreamRow);
}

/** Webhooks, the event outbox and deliveries in PostgreSQL (migration 0015). */
export function createWebhookRepo(pool: pg.Pool): WebhookRepo {
  return { ...webhookRegistry(pool), ...deliveryQueue(pool), ...deliveryLog(pool) };
}

/** The webhooks themselves: added, listed, removed, enabled again. */
function webhookRegistry(pool: pg.Pool): Pick<WebhookRepo, 'add' | 'list' | 'get' | 'remove' | 'enable'> {
  return {
    add(webhook, perOwner) {
      const insert = async (client: Pick<pg.ClientBase, 'query'>) => {
        const { rows } = await client.query<WebhookRow>(
          `insert into webhooks (id, url, events, channel_id, secret, created_by, owner) values ($1, $2, $3, $4, $5, $6, $7) returning ${WEBHOOK_COLUMNS}`,
          [webhook.id, webhook.url, webhook.events, webhook.channelId, webhook.secret, webhook.createdBy, webhook.owner],
        );
        return toWebhook(rows[0] as WebhookRow);
      };
      // the instance's webhooks have no cap; a user's have `perOwner`
      if (webhook.owner === null) return insert(pool);
      const cap = {
        lock: `kura_webhooks_of:${webhook.owner}`,
        count: 'select count(*)::int as n from webhooks where owner = $1',
        params: [webhook.owner],
        limit: perOwner,
      };
      return insertBelowCap(pool, cap, insert);
    },

    async list(owner) {
      const { rows } = await pool.query<WebhookRow>(`select ${WEBHOOK_COLUMNS} from webhooks where $1::text is null or owner = $1 order by created_at, id`, [
        owner ?? null,
      ]);
      return rows.map(toWebhook);
    },

    async get(id) {
      const { rows } = await pool.query<WebhookRow>(`select ${WEBHOOK_COLUMNS} from webhooks where id = $1`, [id]);
      return rows[0] ? toWebhook(rows[0]) : null;
    },

    async remove(id) {
      const { rowCount } = await pool.query('delete from webhooks where id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },

    enable(id) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<WebhookRow>(
          `update webhooks set disabled_at = null, disabled_reason = null, failing_since = null where id = $1 returning ${WEBHOOK_COLUMNS}`,
          [id],
        );
        if (!rows[0]) return null;
        await client.query('update webhook_deliveries set next_attempt_at = now() where webhook_id = $1 and delivered_at is null and given_up_at is null', [
          id,
        ]);
        await client.query(`select pg_notify('kura_webhook_events', '')`);
        return toWebhook(rows[0]);
      });
    },
  };
}

/** Deliveries as the sender works through them: claimed when due, each attempt recorded. */
function deliveryQueue(pool: pg.Pool): Pick<WebhookRepo, 'claimDue' | 'recordAttempt' | 'nextDueAt'> {
  return {
    async claimDue(limit, leaseSeconds) {
      const { rows } = await pool.query(
        `with due as (
           select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
           where d.delivered_at is null and d.given_up_at is null and d.next_attempt_at <= now() and w.disabled_at is null
             and ${HEAD_OF_ITS_RECORD}
           order by d.next_attempt_at, d.event_id
           limit $1
           for update of d skip locked
         ),
         claimed as (
           update webhook_deliveries d set next_attempt_at = now() + make_interval(secs => $2)
           from due where d.id = due.id
           returning d.id, d.webhook_id, d.event_id, d.attempts, d.first_attempt_at
         )
         select c.id::text, c.attempts, c.first_attempt_at, w.id as webhook_id, w.url, w.secret, w.owner,
                e.id::text as event_id, e.type, e.occurred_at, e.snapshot, e.data, e.follow_id
         from claimed c join webhooks w on w.id = c.webhook_id join events e on e.id = c.event_id
         order by e.id`,
        [limit, leaseSeconds],
      );
      return rows.map((row): ClaimedDelivery => ({
        id: row.id,
        attempts: row.attempts,
        firstAttemptAt: row.first_attempt_at,
        webhook: { id: row.webhook_id, url: row.url, secret: row.secret, owner: row.owner },
        event: {
          id: row.event_id,
          type: row.type,
          occurredAt: row.occurred_at,
          record: row.snapshot && row.follow_id === null ? fromSnapshot(row.snapshot) : null,
          follow: row.snapshot && row.follow_id !== null ? followFromSnapshot(row.snapshot) : null,
          data: row.data,
        },
      }));
    },

    recordAttempt(delivery, outcome: AttemptOutcome, disable) {
      const { attempt, at } = outcome;
      return inTransaction(pool, async (client) => {
        await client.query(
          `update webhook_deliveries set attempts = attempts + 1, last_status_code = $2, last_error = $3, last_duration_ms = $4,
             last_attempt_at = $5, first_attempt_at = coalesce(first_attempt_at, $5),
             delivered_at = case when $6 then $5 end, given_up_at = case when not $6 and $7::timestamptz is null then $5 end,
             next_attempt_at = coalesce($7, next_attempt_at)
           where id = $1`,
          [delivery.id, attempt.statusCode, attempt.error, Math.round(attempt.durationMs), at, outcome.delivered, outcome.retryAt],
        );
        if (outcome.delivered) {
          await client.query('update webhooks set failing_since = null where id = $1', [delivery.webhook.id]);
          return false;
        }
        const { rows } = await client.query<{ disabled_now: boolean }>(
          `update webhooks w set failing_since = coalesce(w.failing_since, $2),
             disabled_at = case when w.disabled_at is null and coalesce(w.failing_since, $2) < $3 then $2 else w.disabled_at end,
             disabled_reason = case when w.disabled_at is null and coalesce(w.failing_since, $2) < $3 then $4 else w.disabled_reason end
           from webhooks before where before.id = w.id and w.id = $1
           returning before.disabled_at is null and w.disabled_at is not null as disabled_now`,
          [delivery.webhook.id, at, disable.before, disable.reason],
        );
        return rows[0]?.disabled_now === true;
      });
    },

    async nextDueAt() {
      const { rows } = await pool.query<{ at: Date | null }>(
        `select min(d.next_attempt_at) as at from webhook_deliveries d join webhooks w on w.id = d.webhook_id
         where d.delivered_at is null and d.given_up_at is null and w.disabled_at is null and ${HEAD_OF_ITS_RECORD}`,
      );
      return rows[0]?.at ?? null;
    },
  };
}

/** A webhook's deliveries as its owner sees them, a test one, and the old ones pruned. */
function deliveryLog(pool: pg.Pool): Pick<WebhookRepo, 'deliveries' | 'enqueueTest' | 'prune'> {
  return {
    async deliveries(webhookId, limit) {
      const { rows } = await pool.query(
        `select d.*, e.type as event_type, e.livestream_id from webhook_deliveries d join events e on e.id = d.event_id
         where d.webhook_id = $1 order by d.id desc limit $2`,
        [webhookId, limit],
      );
      return rows.map(toDelivery);
    },

    enqueueTest(webhookId, data) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ id: string }>(`insert into events (type, data) values ('webhook.test', $1) returning id::text`, [data]);
        const id = (rows[0] as { id: string }).id;
        await client.query('insert into webhook_deliveries (webhook_id, event_id) values ($1, $2)', [webhookId, id]);
        await client.query(`select pg_notify('kura_webhook_events', '')`);
        return id;
      });
    },

    async prune(before) {
      // two statements: one statement's second delete would not see the first one's deletions
      const deliveries = await pool.query('delete from webhook_deliveries where coalesce(delivered_at, given_up_at) < $1', [before]);
      // an event and its deliveries commit together, so an event seen here without any has none to come
      const events = await pool.query('delete from events e where not exists (select 1 from webhook_deliveries d where d.event_id = e.id)');
      return (deliveries.rowCount ?? 0) + (events.rowCount ?? 0);
    },
  };
}

function toDelivery(row: Record<string, unknown>): Delivery {
  const pending = row.delivered_at === null && row.given_up_at === null;
  return {
    id: String(row.id),
    webhookId: row.webhook_id as string,
    eventId: String(row.event_id),
    eventType: row.event_type as EventType,
    livestreamId: (row.livestream_id as string | null) ?? null,
    attempts: row.attempts as number,
    lastStatusCode: row.last_status_code as number | null,
    lastError: row.last_error as string | null,
    lastDurationMs: row.last_duration_ms as number | null,
    lastAttemptAt: row.last_attempt_at as Date | null,
    nextAttemptAt: pending ? (row.next_attempt_at as Date) : null,
    deliveredAt: row.delivered_at as Date | null,
    givenUpAt: row.given_up_at as Date | null,
    createdAt: row.created_at as Date,
  };
}
