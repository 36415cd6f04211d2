// Decisions: docs/decisions/0016-client-address-and-trusted-proxies.md, docs/decisions/0076-logs-an-operator-reads.md
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppDeps, AppOptions } from './app-deps.js';
import { createGuard } from './auth/guard.js';
import { installReadAccess } from './auth/read-access.js';
import { answerClientError } from './client-error.js';
import { INTEGRITY_HEADER } from './download/download.routes.js';
import { FrontDoor } from './front-door.js';
import { installInputChecks } from './input-checks.js';
import { redactingSink } from './log-redaction.js';
import { installMetrics } from './metrics.js';
import { paginationHeaderNames } from './pagination.js';
import { sendProblem } from './problem.js';
import { installProblemHandling } from './problem-handling.js';
import { frameworkProblem, MAX_PATH_PARAMETER_LENGTH } from './request-problems.js';
import { forgetReadsAfterWrites, ReadCache } from './read-cache.js';
import { registerRoutes, SEARCH_ENGINE_PATH } from './routes.js';
import { MeiliError, sendMeiliError } from './search/meili-error.js';
import { loadWebPages } from './web/web.routes.js';
import { pageLocale } from './web/page-language.js';

/** What buildApp takes, declared in app-deps.ts: re-exported for those who build the app. */
export type { AppDeps, AppOptions } from './app-deps.js';

/** Request limits: nothing waits forever, nothing arrives unbounded (a path parameter holds the longest channel id). */
const LIMITS = {
  bodyLimit: 1024 * 1024,
  requestTimeout: 30_000,
  connectionTimeout: 60_000,
  keepAliveTimeout: 10_000,
  // how often Node looks for requests past requestTimeout: once a minute (its default 30 s woke an
  // idle server twice a minute; decision 0086), so a request that stalls is cut 30 to 90 s in
  http: { connectionsCheckingInterval: 60_000 },
  routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
};

/** Builds the HTTP app (api routes under /api, health and metrics at the root) without listening. */
export async function buildApp(deps: AppDeps, options: AppOptions): Promise<FastifyInstance> {
  const pagination = { originalHeaders: options.originalHeaders ?? false };
  const app = Fastify({
    ...LIMITS,
    ...(options.logger
      ? { loggerInstance: options.logger }
      : { logger: { level: options.logLevel, stream: redactingSink(options.logStream ?? process.stdout) } }),
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
  // a browser sent to a path nothing answers gets the app, which shows its not-found page (404)
  const publicRead = options.publicRead ?? true;
  const pages = options.webDir ? loadWebPages(options.webDir, publicRead) : null;
  if (options.webDir && pages === null) app.log.warn({ dir: options.webDir }, 'the web UI is not built (npm run build): only the API is served');
  installProblemHandling(app, { notFoundPage: pages && ((request) => pages.page(pageLocale(request))) });
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
      exposedHeaders: [...paginationHeaderNames(pagination), INTEGRITY_HEADER],
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
  const { sessions, apiTokens, feedTokens, settings: rules } = deps.accounts;
  const guard = createGuard({ sessions, apiTokens, settings: { admins: rules.admins }, publicUrl: options.publicUrl });
  // before any route (metrics included), so no route of a private instance is left open by mistake
  if (!publicRead) installReadAccess(app, { guard, feedTokens });
  // after swagger, so /metrics is in the OpenAPI document
  const cache = new ReadCache(options.readCacheEntries, deps.changeFeed);
  const frontDoor = new FrontDoor();
  const { observeDoorAnswer } = installMetrics(app, {
    lifecycleRepairs: deps.lifecycleRepairs,
    archives: deps.archiveChecks,
    follows: deps.follows?.follows,
    disks: deps.disks,
    readCache: cache.counts,
    frontDoor,
  });
  // anonymous reads the cache holds are answered before Fastify; on a private instance every read is checked
  if (publicRead) frontDoor.open(app.server, cache, observeDoorAnswer);

  forgetReadsAfterWrites(app, cache);
  await registerRoutes(app, deps, {
    cache,
    guard,
    publicRead,
    publicUrl: options.publicUrl,
    usdPerGbPerMonth: options.usdPerGbPerMonth,
    web: options.webDir && pages ? { dir: options.webDir, pages } : null,
    pagination,
    originalClient: pagination.originalHeaders,
  });
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
