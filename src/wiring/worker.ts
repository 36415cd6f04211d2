// Decisions: docs/decisions/0109-workers-report.md
import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { createFragmentRecorder } from '../adapters/capture/fragment-recorder.js';
import { createHlsRecorder } from '../adapters/capture/hls-recorder.js';
import { createRecordedBytes } from '../adapters/capture/recorded-bytes.js';
import { createSpool } from '../adapters/capture/spool.js';
import { freeBytes } from '../adapters/os/disk-space.js';
import { createFrameRepo } from '../adapters/db/frame-repo.js';
import { createFrameRequests } from '../core/playback/frame-requests.js';
import { createAdminActionRepo } from '../adapters/db/admin-action-repo.js';
import { createDiskReportRepo } from '../adapters/db/disk-report-repo.js';
import { diskSpace } from '../adapters/os/disk-space.js';
import { createExpiredPurger } from '../adapters/db/expired-purger.js';
import { createHostPacer } from '../adapters/follows/host-pacer.js';
import { createSweepRepo } from '../adapters/db/sweep-repo.js';
import { createFfmpegTools } from '../adapters/media/ffmpeg-tools.js';
import { createTwitchChatSource } from '../adapters/sources/twitch-chat-source.js';
import { createYouTubeChatSource } from '../adapters/sources/youtube-chat-source.js';
import type { Config } from '../config/config.js';
import type { ArchiveStore } from '../core/archive/ports.js';
import { liveDepsOf } from '../core/playback/get-live-playlist.js';
import { chatArchive } from '../core/chat/store-chat.js';
import { ytdlpOf } from './sources.js';
import { createYtDlpUpdater } from '../adapters/ytdlp/ytdlp-updater.js';
import { startBackgroundWork } from '../jobs/background.js';
import type { WorkerDeps } from '../jobs/job-work.js';
import type { Jobs } from '../jobs/jobs.js';
import { createSearchDrain } from '../jobs/loops/search-sync.js';
import type { WorkerContext } from '../jobs/worker-context.js';
import { openChannelFeeds, type Database } from './database.js';
import { createEventSubSubscriber, createFollowSignals } from './follow-signals.js';
import { createDeliverDeps } from './notifications.js';
import { serveWorkerStatus } from '../http/worker-status.js';
import { WorkerActivity } from '../shared/worker-activity.js';
import { searchSyncDeps, type Search } from './search.js';
import type { Sources } from './sources.js';
import { createVerifyDeps, spoolDirOf, verifyPolicy } from './storage.js';
import { createScheduledBackups } from './backup.js';

/** Of the shutdown grace, how long a capture's chunks on local disk get to reach the store for the next worker. */
const HANDOVER_MS = 8_000;

/** What the worker's jobs run on: this process's database, store, job queue, sources and search. */
export interface WorkerParts {
  database: Database;
  store: ArchiveStore;
  jobs: Jobs;
  sources: Sources;
  search: Search;
}

function createWorkerDeps(config: Config, parts: WorkerParts, log: Logger, activity: WorkerActivity): WorkerDeps {
  const { database, store, jobs, sources } = parts;
  const { capture } = config;
  const spool = createSpool(spoolDirOf(config));
  const recorderDeps = {
    captures: database.captures,
    fetcher: sources.fetcher,
    spool,
    store,
    freeBytes,
    limits: { ...capture, heartbeatSeconds: Math.max(1, capture.staleAfterSeconds / 6), handoverMs: HANDOVER_MS },
    recorded: (bytes: number) => void (activity.captureBytes += bytes),
  };
  return {
    livestreams: database.livestreams,
    watchLooks: database.watchLooks,
    captures: database.captures,
    scheduler: jobs,
    jobs,
    sweep: createSweepRepo(database.pool),
    adminActions: createAdminActionRepo(database.pool),
    source: sources.source,
    recorder: createHlsRecorder(recorderDeps),
    fragmentRecorder: createFragmentRecorder(recorderDeps),
    media: createFfmpegTools({
      ffmpeg: config.ffmpegPath,
      ffprobe: config.ffprobePath,
      backlogBytes: capture.chunkBytes,
      log: (line) => log.warn(line),
    }),
    store,
    spool,
    // the recent frame reads the last segment where this worker keeps it (its spool, or the store)
    live: liveDepsOf({
      livestreams: database.livestreams,
      captures: database.captures,
      bytes: createRecordedBytes({ captures: database.captures, store, spool }),
    }),
    frames: createFrameRepo(database.pool),
    frameRequests: createFrameRequests(),
    fetchImage: sources.fetchImage,
    chats: database.chats,
    chatArchive: chatArchive({ chats: database.chats, store, spool }),
    chatSources: {
      youtube: createYouTubeChatSource({ ytdlp: ytdlpOf(config), dir: path.join(spoolDirOf(config), 'chats') }),
      twitch: createTwitchChatSource({ url: config.twitchChatUrl }),
    },
  };
}

/** Everything the worker's jobs and loops run on, each part built once (see jobs/worker-context.ts). */
const REFUSED = "the search engine refused documents: they are indexed again in an hour, at their record's next change, or by kura search reindex";

function createWorkerContext(config: Config, parts: WorkerParts, log: Logger, activity: WorkerActivity): WorkerContext {
  const { database, store, jobs, sources } = parts;
  const { capture, follow } = config;
  const deps = createWorkerDeps(config, parts, log, activity);
  const search = searchSyncDeps(parts.search, database, config.publicUrl);
  return {
    deps,
    settings: {
      workerId: `${hostname()}:${process.pid}`,
      staleAfterSeconds: capture.staleAfterSeconds,
      unreachableSeconds: capture.unreachableSeconds,
      watch: { pollSeconds: capture.watchPollSeconds, neverLiveSeconds: capture.neverLiveSeconds },
    },
    timing: { maxCaptures: capture.maxCaptures, backstopSeconds: capture.jobPollSeconds },
    log,
    jobs,
    follows: {
      deps: {
        ...deps,
        follows: database.follows,
        pacer: createHostPacer({ requestsPerMinute: follow.hostRequestsPerMinute }),
        signals: createFollowSignals(config, sources, database.follows),
      },
      concurrency: follow.concurrency,
      policy: { intervals: follow.intervals, horizonSeconds: follow.horizonSeconds },
    },
    purger: createExpiredPurger(database.pool),
    spoolReport: { read: () => diskSpace(spoolDirOf(config)), reports: createDiskReportRepo(database.pool) },
    ytdlpUpdates: config.ytdlpAutoUpdate ? createYtDlpUpdater(ytdlpOf(config)) : null,
    backups: createScheduledBackups(config, database.pool),
    twitchEventSub: createEventSubSubscriber(config, database.follows),
    verify: { deps: createVerifyDeps(database, store), policy: verifyPolicy(config) },
    webhooks: {
      deps: { ...createDeliverDeps(config, database.pool), onAttempt: (result) => void (activity.webhookDeliveries[result] += 1) },
      drains: jobs,
    },
    activity,
    retention: { deps: { ...deps, retention: database.retention }, defaults: config.retention },
    ...(search === null ? {} : { search: createSearchDrain({ ...search, onRejected: (rejected) => log.warn({ rejected }, REFUSED) }) }),
  };
}

/**
 * Starts this process's background work: every job and loop of the catalogue (src/jobs), on one
 * LISTEN connection, whose session stands for this worker's liveness; with KURA_WORKER_PORT, its
 * own /healthz and /metrics too. The returned function stops it and hands running captures back.
 */
export async function startWorker(config: Config, parts: WorkerParts, log: Logger): Promise<() => Promise<void>> {
  const activity = new WorkerActivity();
  const context = createWorkerContext(config, parts, log, activity);
  const { workerId } = context.settings;
  const stop = await startBackgroundWork(context, (channels) => openChannelFeeds(parts.database, log, channels, workerId));
  const status =
    config.workerPort === null
      ? null
      : await serveWorkerStatus({ workerId, activity, jobsWaiting: () => parts.jobs.waiting() }, { host: config.host, port: config.workerPort }).catch(
          async (error: Error) => {
            await stop();
            throw error;
          },
        );
  log.info({ workerId, maxCaptures: context.timing.maxCaptures, ...(status === null ? {} : { statusUrl: status.url }) }, 'kura worker ready');
  return async () => {
    await stop();
    await status?.close();
  };
}
