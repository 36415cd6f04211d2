import type { FastifyBaseLogger } from 'fastify';
import type { ArchiveStore } from '../core/archive/ports.js';
import type { ArchiveCheckRepo } from '../core/archive/integrity.js';
import type { CaptureRepo, FrameRequestSignal, RecordedBytes } from '../core/capture/ports.js';
import type { ChannelRepo } from '../core/channels/ports.js';
import type { ClipCutter } from '../core/playback/ports.js';
import type { MomentRepo } from '../core/moments/ports.js';
import type { ClipLimits } from './download/clip-gate.js';
import type { ChatFiles, ChatLog } from '../core/chat/ports.js';
import type { LivestreamRepo, WatchLooks } from '../core/records/ports.js';
import type { ChangeFeed } from '../shared/change-feed.js';
import type { SearchEngine } from '../core/search/search.js';
import type { StreamSource } from '../core/sources/ports.js';
import type { AccountDeps } from './auth/account-deps.js';
import type { DiskSource } from './disk-metrics.js';
import type { FollowDeps } from './follows/follows.routes.js';
import type { EventSubDeps } from './twitch/eventsub.routes.js';
import type { ChangelogRelease } from './meta/changelog.js';
import type { SearchAccessProvider } from './search/search.routes.js';
import type { WebhookDeps } from './webhooks/webhooks.routes.js';
import type { RetentionRepo } from '../core/retention/ports.js';
import type { RetentionRules } from '../core/retention/retention-rules.js';
import type { Scheduler } from '../core/scheduler.js';

/** Everything the HTTP app serves from, as the composition root hands it over: registerRoutes gives each route plugin its part. */
export interface AppDeps {
  livestreams: LivestreamRepo;
  /** The watch job's last look at each upcoming record, shown with it. */
  watchLooks: WatchLooks;
  channels: ChannelRepo;
  /** Followed channels: the repository, the YouTube handle resolver and what a follow may name; unset: /api/follows is not served. */
  follows?: FollowDeps;
  /** Twitch's EventSub callback (decision 0138); unset: /api/twitch/eventsub is not served (EventSub off). */
  twitchEventSub?: EventSubDeps;
  /** Webhooks (admin); unset: /api/webhooks is not served. */
  webhooks?: WebhookDeps;
  /** Retention (admin): channels' rules, pins, the preview, and the instance's default rules; unset: those routes are not served. */
  retention?: { retention: RetentionRepo; defaults: RetentionRules };
  captures: CaptureRepo;
  /** Moments marked in records (issue 54). */
  moments: MomentRepo;
  chats: ChatLog;
  /** The chat files stored beside finished archives, which a finalized archive's chat is read from. */
  chatFiles: ChatFiles;
  /** What captures recorded so far, as this process can read it: the store's chunks, and the spool when it is on this machine. */
  recordedBytes: RecordedBytes;
  /** Tells the worker recording a record that someone asked for its recent frame (it makes frames only then). */
  frameRequests: FrameRequestSignal;
  store: ArchiveStore;
  source: StreamSource;
  isDatabaseReachable: () => Promise<boolean>;
  /** Null disables the read cache (nothing would tell it about changes). */
  changeFeed: ChangeFeed | null;
  about: { name: string; version: string; commit: string; changelog: ChangelogRelease[] };
  accounts: AccountDeps;
  /** Asks for a record's next steps (a submission's watch, an admin's retry or revival). */
  scheduler: Scheduler;
  /** Stored archives by integrity, for /metrics (`kura_archives`); unset leaves that gauge out. */
  archiveChecks?: Pick<ArchiveCheckRepo, 'counts'>;
  /** Unset: search is off. `engine` is the built-in engine, served at /api/search-engine. */
  search?: { access: SearchAccessProvider; engine: SearchEngine | null };
  /** Repairs of the lifecycle sweep by action, from every worker (kura_sweep_repairs_total). */
  lifecycleRepairs?: () => Promise<Partial<Record<string, number>>>;
  /** Clips of archives: the cutter, the longest clip and how many are cut at once; unset: /api/download/{id}/clip is not served. */
  clips?: { cutter: ClipCutter; maxSeconds: number; limits: ClipLimits };
  /** The archive storage's and the workers' spools' space (admins' stats, /metrics); unset leaves them out. */
  disks?: DiskSource;
}

/** How the HTTP app behaves: its public URL, CORS, proxies, limits, logging and the built web UI. */
export interface AppOptions {
  publicUrl: string;
  corsOrigins: readonly string[];
  /** Anyone may read (absent or true), or only callers with credentials (KURA_PUBLIC_READ=false). */
  publicRead?: boolean;
  /** Also send the original service's pagination headers, `X-Pomu-Pagination-*` (KURA_ORIGINAL_HEADERS); default false. */
  originalHeaders?: boolean;
  /** Proxies whose X-Forwarded-For gives `request.ip` (KURA_TRUST_PROXY); empty or absent: the socket's peer. */
  trustProxy?: readonly string[];
  usdPerGbPerMonth: number;
  readCacheEntries: number;
  logLevel: string;
  /** The process's logger, for the app's lines to share its format and destination; absent: a JSON logger of its own at `logLevel`. */
  logger?: FastifyBaseLogger;
  /** Where log lines go (default stdout); tests read them here. */
  logStream?: { write(line: string): void };
  /** The built web UI (dist/web) to serve at /; null or absent serves the API alone. */
  webDir?: string | null;
}
