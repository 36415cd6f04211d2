import type { ExpiredPurger } from '../core/accounts/ports.js';
import type { JobFailureHooks, JobHandlers } from './catalogue.js';
import type { WorkerLimits } from './job-definition.js';
import type { BackgroundLog, JobParts, WorkerDeps, WorkerSettings } from './job-work.js';
import type { Jobs } from './jobs.js';
import type { WorkerActivity } from '../shared/worker-activity.js';
import type { LoopTimes } from './runtime/loop.js';
import type { FollowChecking } from './loops/follow-poller.js';
import type { SpoolReporting } from './loops/spool-report.js';
import type { YtDlpUpdating } from './loops/ytdlp-update.js';
import type { ScheduledBackups } from './loops/scheduled-backup.js';
import type { EventSubSubscribing } from './loops/twitch-eventsub.js';

/** The limits and timers of a worker's loops (KURA_MAX_CAPTURES, KURA_JOB_POLL_SECONDS). */
export type WorkerTiming = WorkerLimits & LoopTimes;

/** What one worker process's background work runs on: built once by the composition root (src/wiring/worker.ts). */
export interface WorkerContext extends JobParts {
  deps: WorkerDeps;
  settings: WorkerSettings;
  timing: WorkerTiming;
  log: BackgroundLog;
  /** The job queue: sends, runs the handlers, keeps the clock. */
  jobs: Jobs;
  follows: FollowChecking;
  purger: ExpiredPurger;
  /** Updates the yt-dlp Kura installed; null: updates off (KURA_YTDLP_AUTO_UPDATE=false) or the yt-dlp is the operator's own. */
  ytdlpUpdates?: YtDlpUpdating | null;
  /** Takes the daily backup into KURA_BACKUP_DIR; null or unset: backups off. */
  backups?: ScheduledBackups | null;
  /** Subscribes followed Twitch channels to EventSub's stream.online; null or unset: EventSub off. */
  twitchEventSub?: EventSubSubscribing | null;
  /** Reports this worker's spool space (the spool-report loop); unset: not reported. */
  spoolReport?: SpoolReporting;
  /** What this worker does and holds, for its /metrics; unset: not counted. */
  activity?: WorkerActivity;
}

/** A WorkerContext with the job handlers and hooks made from it: what the loops of the catalogue start on. */
export interface LoopContext extends WorkerContext {
  handlers: JobHandlers;
  hooks: JobFailureHooks;
}
