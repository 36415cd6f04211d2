/*
 * The PostgreSQL NOTIFY channels that wake Kura's background work, from any process. Each but the
 * frame requests' is notified by a trigger: the migrations' (migrations/*.sql) or, for the jobs, the
 * one the queue adapter puts on pg-boss's job table (pg-boss-tables.ts).
 */

/** A job sent, retried or brought forward: `<queue> <ms until due>`. */
export const JOB_NOTIFY_CHANNEL = 'kura_jobs';

/** A follow due sooner than before (added, resumed, checked): its next check, epoch ms (migration 0018). */
export const FOLLOW_NOTIFY_CHANNEL = 'kura_follows';

/** A capture's lease taken or given up, not renewed (migration 0018). */
export const LEASE_NOTIFY_CHANNEL = 'kura_leases';

/** A committed change to records (migration 0001 and later): the search outbox has work. */
export const RECORD_CHANGES_CHANNEL = 'kura_livestreams_changed';

/** A new webhook event in the outbox (migrations 0015, 0017). */
export const WEBHOOK_EVENTS_CHANNEL = 'kura_webhook_events';

/** Someone asked for a recording's recent frame: the record's id (sent by the api, src/adapters/db/frame-repo.ts, not a trigger). */
export const FRAME_REQUESTS_CHANNEL = 'kura_frame_looks';

/** Every channel background work listens to. */
export type NotifyChannel =
  | typeof JOB_NOTIFY_CHANNEL
  | typeof FOLLOW_NOTIFY_CHANNEL
  | typeof LEASE_NOTIFY_CHANNEL
  | typeof RECORD_CHANGES_CHANNEL
  | typeof WEBHOOK_EVENTS_CHANNEL
  | typeof FRAME_REQUESTS_CHANNEL;
