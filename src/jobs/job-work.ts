import type { VerifyArchivesDeps, VerifyPolicy } from '../core/archive/verify-archives.js';
import type { CaptureDeps } from '../core/capture/capture-stream.js';
import type { FinalizeDeps } from '../core/capture/finalize-archive.js';
import type { KeepLiveFrameDeps } from '../core/playback/refresh-live-frame.js';
import type { ChatDeps } from '../core/chat/capture-chat.js';
import type { DeliverDeps } from '../core/notifications/deliver-webhooks.js';
import type { SweepDeps } from '../core/record-actions/sweep-lifecycle.js';
import type { CompleteTakedownDeps } from '../core/record-actions/complete-takedown.js';
import type { WatchDeps, WatchPolicy } from '../core/record-actions/watch-stream.js';
import type { ApplyRetentionDeps } from '../core/retention/apply-retention.js';
import type { RetentionRules } from '../core/retention/retention-rules.js';

/** The ports the record jobs (watch, capture and its recent frame, chat, finalize, sweep, a takedown's completion) run on. */
export type WorkerDeps = WatchDeps & CaptureDeps & KeepLiveFrameDeps & FinalizeDeps & SweepDeps & ChatDeps & CompleteTakedownDeps;

/** Who this worker is and the capture settings its jobs share. */
export interface WorkerSettings {
  workerId: string;
  /** A capture's lease older than this is stale: its worker is gone (KURA_STALE_AFTER_SECONDS). */
  staleAfterSeconds: number;
  /** How long a source may give no answer before its capture ends `source_unreachable` (KURA_CAPTURE_UNREACHABLE_SECONDS). */
  unreachableSeconds: number;
  watch: WatchPolicy;
}

/** The slice of a pino logger background work writes to. */
export interface BackgroundLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Brings the search index up to date from its outbox; resolves with the record ids applied. */
export type SearchDrain = () => Promise<string[]>;

/** What asks for a drain of the webhook deliveries at `at` (now when absent): the job queue. */
export interface WebhookDrains {
  deliverWebhooks(at?: Date): Promise<void>;
}

/** What the retention job runs on: its ports and the instance's default rules (KURA_RETENTION_*). */
export interface RetentionWork {
  deps: ApplyRetentionDeps;
  defaults: RetentionRules;
}

/** The parts of the jobs beyond the records: a job whose part is unset (search off, a test) does nothing. */
export interface JobParts {
  log?: BackgroundLog;
  search?: SearchDrain;
  verify?: { deps: VerifyArchivesDeps; policy: VerifyPolicy };
  webhooks?: { deps: DeliverDeps; drains: WebhookDrains };
  retention?: RetentionWork;
}

/** A capture or chat running in this process, and how to stop it. */
export interface RunningWork {
  controller: AbortController;
  /** Settles when it ended, however it ended. */
  done: Promise<void>;
}

/** What a job's handler and failure hook run on in this process. */
export interface JobWork extends JobParts {
  deps: WorkerDeps;
  settings: WorkerSettings;
  /** The captures and chats this process runs, by record id: a duplicate request is not run twice, and a stop hands them over. */
  running: { captures: Map<string, RunningWork>; chats: Map<string, RunningWork> };
}
