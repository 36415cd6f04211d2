import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify';
import type { ArchiveStore } from '../core/archive/ports.js';
import type { ChatLog } from '../core/chat/ports.js';
import type { CaptureRepo, RecordedBytes } from '../core/capture/ports.js';
import type { ChangeFeed, LivestreamRepo } from '../core/livestream/ports.js';
import type { ChannelRepo } from '../core/channels/ports.js';
import type { StreamSource } from '../core/sources/ports.js';
import type { ArchiveCheckRepo } from '../core/archive/integrity.js';
import type { ChangelogRelease } from './meta/changelog.js';
import { healthRoutes } from './health/health.routes.js';
import { historyRoutes } from './history/history.routes.js';
import { channelRoutes } from './channels/channels.routes.js';
import { feedRoutes } from './feeds/feeds.routes.js';
import { followRoutes, type FollowDeps } from './follows/follows.routes.js';
import { webhookRoutes, type WebhookRouteDeps } from './webhooks/webhooks.routes.js';
import { PAGINATION_HEADERS } from './history/history.schema.js';
import { metaRoutes } from './meta/meta.routes.js';
import { installMetrics } from './metrics.js';
import { frameworkProblem, installProblemHandling, MAX_PATH_PARAMETER_LENGTH, sendProblem } from './problem.js';
import { installInputChecks } from './input-checks.js';
import { answerClientError } from './client-error.js';
import { queueRoutes } from './queue/queue.routes.js';
import { forgetReadsAfterWrites, ReadCache } from './read-cache.js';
import { statsRoutes } from './stats/stats.routes.js';
import { videoRoutes } from './video/video.routes.js';
import { liveRoutes } from './video/live.routes.js';
import { downloadRoutes, INTEGRITY_HEADER } from './download/download.routes.js';
import { logzRoutes } from './logz/logz.routes.js';
import { sourceRoutes } from './sources/sources.routes.js';
import { sliceAccounts, type AccountDeps, type AccountSlices } from './auth/accounts-context.js';
import { authRoutes } from './auth/auth.routes.js';
import { localAuthRoutes } from './auth/local-auth.routes.js';
import { setupRoutes } from './auth/setup.routes.js';
import { createGuard, type Guard } from './auth/guard.js';
import type { RouteContext } from './context.js';
import { userRoutes } from './user/user.routes.js';
import { tokenRoutes } from './tokens/tokens.routes.js';
import { submitRoutes } from './submit/submit.routes.js';
import { videoAdminRoutes } from './video/video-admin.routes.js';
import { chatRoutes } from './video/chat.routes.js';
import { webRoutes } from './web/web.routes.js';
import type { SearchEngine } from '../core/search/search.js';
import { searchEngineRoutes } from './search/search-engine.routes.js';
import { MeiliError, sendMeiliError } from './search/meili-error.js';
import { searchRoutes, type SearchAccessProvider } from './search/search.routes.js';

export interface AppDeps {
  livestreams: LivestreamRepo;
  channels: ChannelRepo;
  /** Followed channels: the repository, the YouTube handle resolver and what a follow may name; unset: /api/follows is not served. */
  follows?: FollowDeps;
  /** Webhooks (admin); unset: /api/webhooks is not served. */
  webhooks?: WebhookRouteDeps;
  captures: CaptureRepo;
  chats: ChatLog;
  /** What captures recorded so far, as this process can read it: the store's chunks, and the spool when it is on this machine. */
  recordedBytes: RecordedBytes;
  store: ArchiveStore;
  source: StreamSource;
  isDatabaseReachable: () => Promise<boolean>;
  /** Null disables the read cache (nothing would tell it about changes). */
  changeFeed: ChangeFeed | null;
  about: { name: string; version: string; commit: string; changelog: ChangelogRelease[] };
  accounts: AccountDeps;
  /** Stored archives by integrity, for /metrics (`kura_archives`); unset leaves that gauge out. */
  archiveChecks?: Pick<ArchiveCheckRepo, 'counts'>;
  /** Unset: search is off. `engine` is the built-in engine, served at /api/search-engine. */
  search?: { access: SearchAccessProvider; engine: SearchEngine | null };
  /** Repairs of the lifecycle sweep by action, from every worker (kura_sweep_repairs_total). */
  lifecycleRepairs?: () => Promise<Partial<Record<string, number>>>;
}

export interface AppOptions {
  publicUrl: string;
  corsOrigins: readonly string[];
  /** Proxies whose X-Forwarded-For gives `request.ip` (KURA_TRUST_PROXY); empty or absent: the socket's peer. */
  trustProxy?: readonly string[];
  usdPerGbPerMonth: number;
  readCacheEntries: number;
  logLevel: string;
  /** Where log lines go (default stdout); tests read them here. */
  logStream?: { write(line: string): void };
  /** The built web UI (dist/web) to serve at /; null or absent serves the API alone. */
  webDir?: string | null;
}

/** Where the built-in search engine is served; its errors are in Meilisearch's format. */
const SEARCH_ENGINE_PATH = '/api/search-engine';

/** Request limits: nothing waits forever, nothing arrives unbounded (a path parameter holds the longest channel id). */
const LIMITS = {
  bodyLimit: 1024 * 1024,
  requestTimeout: 30_000,
  connectionTimeout: 60_000,
  keepAliveTimeout: 10_000,
  routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
};

/** Builds the HTTP app (api routes under /api, health and metrics at the root) without listening. */
export async function buildApp(deps: AppDeps, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...LIMITS,
    logger: { level: options.logLevel, ...(options.logStream ? { stream: options.logStream } : {}) },
    // one log line per request costs more than serving a cached page; errors are still logged
    logController: new LogController({ disableRequestLogging: true }),
    // request.ip is the one client address every limit and log line uses: the socket's peer, or,
    // from a listed proxy, the rightmost X-Forwarded-For hop that is not itself a listed proxy
    trustProxy: options.trustProxy !== undefined && options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false } },
    frameworkErrors: answerFrameworkError,
    // refusals of Node's HTTP parser (a header too large, a NUL in a header) as problem JSON too
    clientErrorHandler: answerClientError,
  });
  installProblemHandling(app);
  installInputChecks(app);
  // a body is JSON unless a route says otherwise (the login form): Fastify's own text/plain parser
  // would hand a JSON route a string and have it refused as "not an object" instead of 415
  app.removeContentTypeParser('text/plain');
  await app.register(cookie);
  app.decorateRequest('caller', null);
  if (options.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: options.corsOrigins.includes('*') ? '*' : [...options.corsOrigins],
      methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
      exposedHeaders: [PAGINATION_HEADERS.total, PAGINATION_HEADERS.hasMore, INTEGRITY_HEADER],
      maxAge: 600,
    });
  }
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Kura API', version: deps.about.version, description: 'Self-hosted livestream archive' },
      servers: [{ url: options.publicUrl }],
    },
    // components named by their $id instead of def-N
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  // after swagger, so /metrics is in the OpenAPI document
  installMetrics(app, { lifecycleRepairs: deps.lifecycleRepairs, archives: deps.archiveChecks, follows: deps.follows?.follows });

  const context: RouteContext = {
    livestreams: deps.livestreams,
    channels: deps.channels,
    captures: deps.captures,
    chats: deps.chats,
    recordedBytes: deps.recordedBytes,
    store: deps.store,
    source: deps.source,
    cache: new ReadCache(options.readCacheEntries, deps.changeFeed),
    publicUrl: options.publicUrl,
    usdPerGbPerMonth: options.usdPerGbPerMonth,
  };
  forgetReadsAfterWrites(app, context.cache);
  const accounts = sliceAccounts(deps.accounts);
  const guard = createGuard(accounts.guard, options.publicUrl);
  await app.register(healthRoutes(deps.isDatabaseReachable));
  await app.register(authRoutes(accounts.auth, options.publicUrl));
  await app.register(localAuthRoutes(accounts.localAuth, guard, options.publicUrl));
  await app.register(setupRoutes(accounts.setup, options.publicUrl));
  await app.register(apiRoutes(context, deps, accounts, guard), { prefix: '/api' });
  await app.register(feedRoutes(context));
  if (options.webDir) await app.register(webRoutes(context, options.webDir));
  return app;
}

/**
 * Fastify's refusals before a route runs (a path that does not decode, a path parameter over 100
 * characters): problem JSON, or Meilisearch's format under the search engine.
 */
const answerFrameworkError: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, request, reply) => {
  const problem = frameworkProblem(error, request) ?? { code: 'bad_request', detail: 'The request cannot be read.' };
  const status = error.statusCode ?? 400;
  if (request.url.startsWith(`${SEARCH_ENGINE_PATH}/`)) return sendMeiliError(reply, new MeiliError(status, 'bad_request', 'invalid_request', problem.detail));
  return sendProblem(reply, status, problem.code, problem.detail);
};

/** Every route under /api. */
function apiRoutes(context: RouteContext, deps: AppDeps, accounts: AccountSlices, guard: Guard): FastifyPluginAsync {
  return async (api) => {
    await api.register(metaRoutes({ ...deps.about, publicUrl: context.publicUrl }));
    await api.register(historyRoutes(context, guard));
    await api.register(channelRoutes(context));
    await api.register(queueRoutes(context, guard));
    await api.register(statsRoutes(context));
    await api.register(videoRoutes(context, guard));
    await api.register(chatRoutes(context));
    await api.register(liveRoutes(context));
    await api.register(logzRoutes(context));
    await api.register(downloadRoutes(context));
    await api.register(sourceRoutes(context, accounts.sources));
    await api.register(userRoutes(accounts.user, guard));
    await api.register(tokenRoutes(accounts.tokens, guard));
    await api.register(submitRoutes(context, accounts.submit, guard));
    if (deps.follows) await api.register(followRoutes(deps.follows, guard));
    if (deps.webhooks) await api.register(webhookRoutes(deps.webhooks, guard));
    await api.register(videoAdminRoutes(context, accounts.videoAdmin, guard));
    await api.register(searchRoutes(deps.search?.access ?? null));
    if (deps.search?.engine) {
      const version = { pkgVersion: deps.about.version, commitSha: deps.about.commit };
      await api.register(searchEngineRoutes({ engine: deps.search.engine, cache: context.cache, version }), {
        prefix: SEARCH_ENGINE_PATH.slice('/api'.length),
      });
    }
  };
}
