// Decisions: docs/decisions/0122-scheduled-backups.md
import { SPOOL_REPORT_SECONDS } from '../core/archive/disk-figures.js';
import { backstop, defineLoop, type Loop } from './runtime/loop.js';
import { JOB_SCHEDULES } from './catalogue.js';
import { startFollowPollerLoop } from './loops/follow-poller.js';
import { startFrameRequestsLoop } from './loops/frame-requests.js';
import { JOB_MAINTENANCE_SECONDS, startJobMaintenanceLoop } from './runtime/job-maintenance.js';
import { startPruneWebhookHistoryLoop, startPurgeExpiredLoop } from './loops/purge-expired.js';
import { SWEEP_SECONDS, startLifecycleSweepLoop } from './loops/lifecycle-sweep.js';
import { startJobClockLoop } from './runtime/job-clock.js';
import { startJobRunnersLoop } from './runtime/job-runners.js';
import { startSearchSyncLoop } from './loops/search-sync.js';
import { startSpoolReportLoop } from './loops/spool-report.js';
import { startWatchdogLoop } from './loops/watchdog.js';
import { WEBHOOK_BACKSTOP_SECONDS, startWebhookWakeUp } from './loops/webhook-wake-up.js';
import { startYtDlpUpdateLoop } from './loops/ytdlp-update.js';
import { startScheduledBackupLoop } from './loops/scheduled-backup.js';
import { startTwitchEventSubLoop } from './loops/twitch-eventsub.js';
import {
  FOLLOW_NOTIFY_CHANNEL,
  FRAME_REQUESTS_CHANNEL,
  JOB_NOTIFY_CHANNEL,
  LEASE_NOTIFY_CHANNEL,
  RECORD_CHANGES_CHANNEL,
  WEBHOOK_EVENTS_CHANNEL,
} from './runtime/notify-channels.js';
import type { LoopContext } from './worker-context.js';

/*
 * Every loop a worker runs, each with what wakes it (a NOTIFY channel, a timer, the clock's
 * schedules); with JOBS (catalogue.ts), the whole of what Kura runs in the background. A worker
 * starts exactly these (background.ts) and listens to exactly the channels they name, all on one
 * connection (the connection budget, decision 0107).
 */

/** Every loop a worker runs, started in this order and stopped in the reverse (the job runners take no new job first). */
export const LOOPS = {
  'search-sync': defineLoop({
    purpose: 'drains the search outbox into the engine as records change; a failed drain asks for index-records',
    wakeUp: { channel: RECORD_CHANGES_CHANNEL, everySeconds: null },
    start: startSearchSyncLoop,
  }),
  'webhook-wake-up': defineLoop({
    purpose: 'asks for a deliver-webhooks drain at each new webhook event, once at start, and when its backstop finds a delivery due',
    wakeUp: { channel: WEBHOOK_EVENTS_CHANNEL, everySeconds: () => WEBHOOK_BACKSTOP_SECONDS },
    start: startWebhookWakeUp,
  }),
  'prune-webhook-history': defineLoop({
    purpose: 'deletes delivered and given-up webhook deliveries past their keeping time, and the events left without one',
    wakeUp: { channel: null, everySeconds: () => 3600 },
    start: startPruneWebhookHistoryLoop,
  }),
  'purge-expired': defineLoop({
    purpose: 'deletes expired sessions, login attempts and rate-limit windows',
    wakeUp: { channel: null, everySeconds: () => 3600 },
    start: startPurgeExpiredLoop,
  }),
  'spool-report': defineLoop({
    purpose: 'notes this worker’s spool free and total space in PostgreSQL, for the api’s /metrics and stats',
    wakeUp: { channel: null, everySeconds: () => SPOOL_REPORT_SECONDS },
    start: startSpoolReportLoop,
  }),
  'lifecycle-sweep': defineLoop({
    purpose: 'repairs records with nothing behind their state and fails those never live past their deadline, each minute, one worker at a time',
    wakeUp: { channel: null, everySeconds: () => SWEEP_SECONDS },
    start: startLifecycleSweepLoop,
  }),
  'ytdlp-update': defineLoop({
    purpose: 'updates the yt-dlp Kura installed once a day (YouTube changes often), logging the version change; a failed update keeps the old one',
    wakeUp: { channel: null, everySeconds: () => 86_400 },
    start: startYtDlpUpdateLoop,
  }),
  'scheduled-backup': defineLoop({
    purpose: 'writes a backup of the database to KURA_BACKUP_DIR once a UTC day, keeping the newest KURA_BACKUP_KEEP; nothing when unset',
    wakeUp: { channel: null, everySeconds: () => 3600 },
    start: startScheduledBackupLoop,
  }),
  'capture-watchdog': defineLoop({
    purpose: 'asks again for captures and finalizes whose worker stopped renewing its lease',
    wakeUp: { channel: LEASE_NOTIFY_CHANNEL, everySeconds: backstop },
    start: startWatchdogLoop,
  }),
  'frame-requests': defineLoop({
    purpose: 'hands each look at a recording’s recent frame to the capture recording it here, which makes frames only while someone looks',
    wakeUp: { channel: FRAME_REQUESTS_CHANNEL, everySeconds: null },
    start: startFrameRequestsLoop,
  }),
  'follow-poller': defineLoop({
    purpose: 'claims follows for a renewed lease and checks each when its time comes, from memory, writing what a check changed',
    wakeUp: { channel: FOLLOW_NOTIFY_CHANNEL, everySeconds: backstop },
    start: startFollowPollerLoop,
  }),
  'twitch-eventsub': defineLoop({
    purpose:
      'subscribes each followed Twitch channel to EventSub’s stream.online when its follow is seen, and every channel again each hour; nothing with EventSub off',
    wakeUp: { channel: FOLLOW_NOTIFY_CHANNEL, everySeconds: () => 3600 },
    start: startTwitchEventSubLoop,
  }),
  'job-maintenance': defineLoop({
    purpose: 'retries or fails the jobs whose attempt outlived its expiry (a dead worker’s), and archives finished jobs past their keeping time',
    wakeUp: { channel: null, everySeconds: () => JOB_MAINTENANCE_SECONDS },
    start: startJobMaintenanceLoop,
  }),
  'job-clock': defineLoop({
    purpose: 'sends the scheduled jobs at their times',
    wakeUp: { channel: null, everySeconds: null, schedules: JOB_SCHEDULES },
    start: startJobClockLoop,
  }),
  'job-runners': defineLoop({
    purpose: 'runs the jobs of JOBS, each queue up to its concurrency, fetching when one may be ready',
    wakeUp: { channel: JOB_NOTIFY_CHANNEL, everySeconds: backstop },
    start: startJobRunnersLoop,
  }),
} satisfies Record<string, Loop<LoopContext>>;

/** Every loop of the catalogue, by name. */
export type LoopName = keyof typeof LOOPS;

/** The channels a worker listens to: those its loops name. */
export const LOOP_CHANNELS = [...new Set(Object.values(LOOPS).flatMap((loop) => (loop.wakeUp.channel === null ? [] : [loop.wakeUp.channel])))];
