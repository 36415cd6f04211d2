// Decisions: docs/decisions/0080-private-instances.md
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { authRoutes } from './auth/auth.routes.js';
import type { Guard } from './auth/guard.js';
import { isCredentialLive, type Credential } from '../core/accounts/authenticate.js';
import { markAccess } from './auth/read-access.js';
import { localAuthRoutes } from './auth/local-auth.routes.js';
import { setupRoutes } from './auth/setup.routes.js';
import { channelRoutes } from './channels/channels.routes.js';
import { clipRoutes } from './download/clip.routes.js';
import { momentRoutes } from './moments/moments.routes.js';
import { liveDepsOf } from '../core/playback/get-live-playlist.js';
import { downloadRoutes } from './download/download.routes.js';
import { feedRoutes } from './feeds/feeds.routes.js';
import { followRoutes } from './follows/follows.routes.js';
import { healthRoutes } from './health/health.routes.js';
import { historyRoutes } from './history/history.routes.js';
import { logzRoutes } from './logz/logz.routes.js';
import { metaRoutes } from './meta/meta.routes.js';
import { queueRoutes } from './queue/queue.routes.js';
import type { PaginationOptions } from './pagination.js';
import type { ReadCache } from './read-cache.js';
import { searchEngineRoutes } from './search/search-engine.routes.js';
import { searchRoutes } from './search/search.routes.js';
import { sourceRoutes } from './sources/sources.routes.js';
import { statsRoutes } from './stats/stats.routes.js';
import { submitRoutes } from './submit/submit.routes.js';
import { tokenRoutes } from './tokens/tokens.routes.js';
import { feedTokenRoutes } from './user/feed-token.routes.js';
import { userRoutes } from './user/user.routes.js';
import { chatRoutes } from './video/chat.routes.js';
import { liveFrameRoutes } from './video/live-frame.routes.js';
import { liveRoutes } from './video/live.routes.js';
import { videoAdminRoutes } from './video/video-admin.routes.js';
import { videoRoutes } from './video/video.routes.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';
import { eventSubRoutes } from './twitch/eventsub.routes.js';
import { webRoutes, type WebPages } from './web/web.routes.js';
import { retentionRoutes } from './retention/retention.routes.js';
import { videoPinRoutes } from './video/video-pin.routes.js';

/** Where the built-in search engine is served; its errors are in Meilisearch's format. */
export const SEARCH_ENGINE_PATH = '/api/search-engine';

/** What buildApp made for this process that routes share, and the settings they read. */
export interface RouteSettings {
  /** The api process's read cache. */
  cache: ReadCache;
  /** How routes know their caller. */
  guard: Guard;
  /** Anyone may read (KURA_PUBLIC_READ); false: the routes not marked open want credentials. */
  publicRead: boolean;
  publicUrl: string;
  usdPerGbPerMonth: number;
  /** The built web UI to serve at / (its directory, and its index.html in each language); null or absent: the API alone. */
  web?: { dir: string; pages: WebPages } | null;
  /** Which pagination headers the paginated lists send. */
  pagination: PaginationOptions;
  /** Also answer the original service's web client where it differs (KURA_ORIGINAL_HEADERS; decision 0098). */
  originalClient: boolean;
}

/**
 * Registers every route plugin, each with a deps object of exactly what it uses (its
 * `…RouteDeps`, declared beside it): the one place AppDeps is taken apart.
 */
export async function registerRoutes(app: FastifyInstance, deps: AppDeps, settings: RouteSettings): Promise<void> {
  const { publicUrl, guard, publicRead, originalClient } = settings;
  const { users, sessions, loginAttempts, rateLimiter, passwords, setup, providers, settings: rules } = deps.accounts;
  const loginRules = { admins: rules.admins, loginLimit: rules.loginLimit };
  // open on a private instance too: health, and everything a login needs (see decision 0080)
  await app.register(async (open) => {
    markAccess(open, 'open');
    await open.register(healthRoutes({ isDatabaseReachable: deps.isDatabaseReachable }));
    await open.register(
      authRoutes({ providers, loginAttempts, users, sessions, setup, settings: { admins: rules.admins }, publicUrl, publicRead, originalClient }),
    );
    await open.register(localAuthRoutes({ users, sessions, passwords, rateLimiter, settings: loginRules, publicUrl, originalClient }));
    await open.register(setupRoutes({ setup, passwords, sessions, rateLimiter, settings: loginRules, publicUrl }));
    if (settings.web) await open.register(webRoutes({ livestreams: deps.livestreams, channels: deps.channels, publicUrl, publicRead, ...settings.web }));
  });
  await app.register(apiRoutes(deps, settings, guard), { prefix: '/api' });
  await app.register(feedRoutes({ livestreams: deps.livestreams, channels: deps.channels, cache: settings.cache, publicUrl, publicRead }));
}

/** Every route under /api. */
function apiRoutes(deps: AppDeps, settings: RouteSettings, guard: Guard): FastifyPluginAsync {
  const { livestreams, watchLooks, channels, captures, chats, recordedBytes, store, source, scheduler } = deps;
  const { submissionSource, rateLimiter, adminActions, users, apiTokens, feedTokens, settings: rules } = deps.accounts;
  const { cache, publicUrl, pagination, originalClient } = settings;
  return async (api) => {
    await api.register(metaRoutes({ ...deps.about, publicUrl }));
    await api.register(historyRoutes({ livestreams, cache, publicUrl, guard, pagination }));
    await api.register(channelRoutes({ livestreams, channels, cache, pagination }));
    await api.register(queueRoutes({ livestreams, watchLooks, captures, cache, publicUrl, guard }));
    await api.register(statsRoutes({ livestreams, cache, usdPerGbPerMonth: settings.usdPerGbPerMonth, guard, disks: deps.disks?.read }));
    await api.register(videoRoutes({ livestreams, watchLooks, captures, moments: deps.moments, publicUrl, guard }));
    await api.register(momentRoutes({ livestreams, moments: deps.moments, rateLimiter, guard }));
    await api.register(chatRoutes({ livestreams, chats, chatFiles: deps.chatFiles }));
    await api.register(liveRoutes({ livestreams, captures, recordedBytes }));
    await api.register(liveFrameRoutes({ livestreams, captures, looks: deps.frameRequests, store }));
    await api.register(logzRoutes({ livestreams, captures }));
    const chapters = deps.clips === undefined ? undefined : { moments: deps.moments, cutter: deps.clips.cutter };
    await api.register(downloadRoutes({ livestreams, chats, store, ...(chapters === undefined ? {} : { chapters }) }));
    if (deps.clips) await api.register(clipRoutes({ ...liveDepsOf({ livestreams, captures, bytes: recordedBytes }), store, ...deps.clips, guard }));
    await api.register(sourceRoutes({ source, submissionSource, rateLimiter, settings: { lookupLimit: rules.lookupLimit }, originalClient }));
    await api.register(userRoutes({ users, guard, originalClient }));
    await api.register(tokenRoutes({ apiTokens, guard }));
    await api.register(feedTokenRoutes({ feedTokens, guard }));
    const submitLimit = rules.submitLimit;
    await api.register(submitRoutes({ livestreams, captures, scheduler, submissionSource, rateLimiter, settings: { submitLimit }, publicUrl, guard }));
    if (deps.follows) await api.register(followRoutes({ ...deps.follows, guard }));
    if (deps.twitchEventSub) await api.register(eventSubRoutes(deps.twitchEventSub));
    if (deps.webhooks) await api.register(webhookRoutes({ ...deps.webhooks, guard }));
    if (deps.retention) await api.register(retentionRoutes({ ...deps.retention, guard }));
    if (deps.retention) await api.register(videoPinRoutes({ retention: deps.retention.retention, guard }));
    await api.register(videoAdminRoutes({ livestreams, captures, store, scheduler, adminActions, publicUrl, guard }));
    const searchEngine = deps.search?.engine;
    // a private instance's built-in engine hands each caller a key of its own (decision 0091)
    const keysPerCaller = !settings.publicRead && searchEngine != null;
    await api.register(searchRoutes({ access: deps.search?.access ?? null, keysPerCaller }));
    if (searchEngine) {
      const version = { pkgVersion: deps.about.version, commitSha: deps.about.commit };
      const callerKeys = keysPerCaller ? { isLive: (credential: Credential) => isCredentialLive(deps.accounts, credential) } : null;
      await api.register(async (engine) => {
        // the engine asks for its own search key, which only a logged-in caller gets (GET /api/search)
        markAccess(engine, 'own-key');
        await engine.register(searchEngineRoutes({ engine: searchEngine, cache, version, callerKeys }), { prefix: SEARCH_ENGINE_PATH.slice('/api'.length) });
      });
    }
  };
}
