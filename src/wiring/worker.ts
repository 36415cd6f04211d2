import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { createHlsRecorder } from '../adapters/capture/hls-recorder.js';
import { createSpool, freeBytes } from '../adapters/capture/spool.js';
import { createExpiredPurger } from '../adapters/db/expired-purger.js';
import { createHostPacer } from '../adapters/follows/host-pacer.js';
import { createSweepRepo } from '../adapters/db/sweep-repo.js';
import { createFfmpegTools } from '../adapters/media/ffmpeg-tools.js';
import { createYouTubeChatSource } from '../adapters/sources/youtube-chat-source.js';
import type { Config } from '../config.js';
import type { ArchiveStore } from '../core/archive/ports.js';
import { createHandlers, type WorkerDeps } from '../jobs/handlers.js';
import { chatArchive } from '../core/chat/store-chat.js';
import { ytdlpOf } from './sources.js';
import { JOB_NOTIFY_CHANNEL, type PgBossJobs } from '../jobs/pg-boss-jobs.js';
import { FOLLOW_NOTIFY_CHANNEL, startFollowPoller } from '../jobs/follow-poller.js';
import { startPurgingExpired } from '../jobs/purge-expired.js';
import { runVerifyArchives } from '../jobs/verify-archives.js';
import { LEASE_NOTIFY_CHANNEL, startWatchdog } from '../jobs/watchdog.js';
import { openChannelFeeds, type Database } from './database.js';
import { createFollowSignals } from './follow-signals.js';
import { startWebhookDelivery } from './notifications.js';
import type { Sources } from './sources.js';
import { createVerifyDeps, verifyPolicy } from './storage.js';

/** Of the shutdown grace, how long a capture's chunks on local disk get to reach the store for the next worker. */
const HANDOVER_MS = 8_000;

/** What the worker's jobs run on: this process's database, store, job queue and sources. */
export interface WorkerParts {
  database: Database;
  store: ArchiveStore;
  jobs: PgBossJobs;
  sources: Sources;
}

function createWorkerDeps(config: Config, parts: WorkerParts, log: Logger): WorkerDeps {
  const { database, store, jobs, sources } = parts;
  const { capture } = config;
  const spool = createSpool(path.join(config.dataDir, 'spool'));
  return {
    livestreams: database.livestreams,
    captures: database.captures,
    scheduler: jobs,
    jobs,
    sweep: createSweepRepo(database.pool),
    source: sources.source,
    recorder: createHlsRecorder({
      captures: database.captures,
      fetcher: sources.fetcher,
      spool,
      store,
      freeBytes,
      limits: { ...capture, heartbeatSeconds: Math.max(1, capture.staleAfterSeconds / 6), handoverMs: HANDOVER_MS },
    }),
    media: createFfmpegTools({
      ffmpeg: config.ffmpegPath,
      ffprobe: config.ffprobePath,
      backlogBytes: capture.chunkBytes,
      log: (line) => log.warn(line),
    }),
    store,
    spool,
    fetchImage: sources.fetchImage,
    chats: database.chats,
    chatArchive: chatArchive({ chats: database.chats, store, spool }),
    chatSource: createYouTubeChatSource({ ytdlp: ytdlpOf(config), dir: path.join(config.dataDir, 'spool', 'chats') }),
  };
}

/** Runs capture jobs, the watchdog and the purge of expired sessions; the returned function hands running captures back. */
export async function startWorker(config: Config, parts: WorkerParts, log: Logger, syncSearch?: () => Promise<unknown>): Promise<() => Promise<void>> {
  const workerId = `${hostname()}:${process.pid}`;
  const { capture } = config;
  const deps = createWorkerDeps(config, parts, log);
  const { database, jobs } = parts;
  const webhooks = await startWebhookDelivery(config, { pool: database.pool, connectionString: database.connectionString, jobs }, log);
  const worker = createHandlers(deps, {
    workerId,
    staleAfterSeconds: capture.staleAfterSeconds,
    watch: { pollSeconds: capture.watchPollSeconds, neverLiveSeconds: capture.neverLiveSeconds },
    // a live record's lease twice as old as the watchdog allows: the watchdog had its turn
    sweep: { neverLiveSeconds: capture.neverLiveSeconds, leaseSeconds: 2 * capture.staleAfterSeconds, batch: 5000 },
    onSwept: (repairs) => log.warn({ repairs }, 'lifecycle sweep repaired records'),
    ...(syncSearch ? { syncSearch } : {}),
    verifyArchives: () => runVerifyArchives(createVerifyDeps(parts.database, parts.store), verifyPolicy(config), log),
    deliverWebhooks: webhooks.drain,
  });
  // what wakes this worker, from any process: jobs sent, follows due sooner, leases taken or given up
  const wake = await openChannelFeeds(database, log, [JOB_NOTIFY_CHANNEL, FOLLOW_NOTIFY_CHANNEL, LEASE_NOTIFY_CHANNEL]);
  const backstopSeconds = capture.jobPollSeconds;
  jobs.work(worker.handlers, worker.hooks, { maxCaptures: capture.maxCaptures, wake: wake.feed(JOB_NOTIFY_CHANNEL), backstopSeconds });
  const stopWatchdog = startWatchdog(deps, {
    staleAfterSeconds: capture.staleAfterSeconds,
    everySeconds: Math.max(1, capture.staleAfterSeconds / 3),
    wake: wake.feed(LEASE_NOTIFY_CHANNEL),
    backstopSeconds,
    onError: (error) => log.warn({ err: error }, 'capture watchdog failed'),
  });
  const stopPurging = startPurgingExpired(createExpiredPurger(parts.database.pool), {
    everySeconds: 3600,
    onError: (error) => log.warn({ err: error }, 'purging expired sessions failed'),
  });
  const { follow } = config;
  const stopFollowing = startFollowPoller(
    {
      ...deps,
      follows: parts.database.follows,
      pacer: createHostPacer({ requestsPerMinute: follow.hostRequestsPerMinute }),
      signals: createFollowSignals(config, parts.sources),
    },
    {
      concurrency: follow.concurrency,
      policy: { intervals: follow.intervals, horizonSeconds: follow.horizonSeconds },
      wake: wake.feed(FOLLOW_NOTIFY_CHANNEL),
      backstopSeconds,
      onError: (error, followId) => log.warn({ err: error, followId }, 'checking a follow failed'),
    },
  );
  log.info({ workerId, maxCaptures: capture.maxCaptures }, 'kura worker ready');
  return async () => {
    jobs.pause(); // no new job while captures hand over (the capture slots they free stay empty)
    await stopFollowing();
    await webhooks.stop();
    stopPurging();
    stopWatchdog();
    await worker.abortCaptures();
    await wake.close();
  };
}
