// Decisions: docs/decisions/0003-cors-and-options.md
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { sendProblem } from './problem.js';
import { pathOf } from './request-problems.js';

const CHECKED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Answers what no route answers: `OPTIONS` that is not a CORS preflight with 204 and `Allow`, a
 * known path with the wrong method 405, an unknown one 404 problem JSON, and a browser's page load
 * of an unknown path outside the API `notFoundPage` (the web UI, which says the page is not found)
 * with 404.
 */
export function installRouteAnswers(app: FastifyInstance, options: { notFoundPage?: ((request: FastifyRequest) => string) | null }): void {
  const knownRoutes = FindMyWay();
  const allowedOn = (path: string) => CHECKED_METHODS.filter((method) => knownRoutes.find(method, path) !== null);
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethod[];
    for (const method of methods) {
      if (method !== 'OPTIONS' && !knownRoutes.hasRoute(method, route.url)) knownRoutes.on(method, route.url, () => undefined);
    }
  });
  // before @fastify/cors's hook, which would answer a non-preflight OPTIONS 400 text/plain
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || isPreflight(request)) return done();
    const path = pathOf(request);
    answerOptions(reply, path, allowedOn(path));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request);
    const allowed = allowedOn(path);
    // a preflight with CORS off (KURA_CORS_ORIGINS empty): what the path allows, and no CORS header
    if (request.method === 'OPTIONS') return answerOptions(reply, path, allowed);
    // a route of the method that found nothing (a file the static route does not have) is a 404
    if (allowed.length > 0 && !(allowed as readonly string[]).includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, 405, 'method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`);
    }
    if (options.notFoundPage && wantsAppPage(request, path)) {
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('vary', 'accept-language, cookie')
        .send(options.notFoundPage(request));
    }
    return sendProblem(reply, 404, 'route_not_found', `There is no route ${request.method} ${path}.`);
  });
}

/** Paths the web UI never shows: the API, logins, feeds, built files and the operator's probes stay problem JSON. */
const NOT_APP_PAGES = /^\/(api|auth|feeds|assets|healthz|readyz|metrics)(\/|$)/;

/** A browser's page load (GET or HEAD asking for HTML) of a path the web UI could show. */
function wantsAppPage(request: FastifyRequest, path: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  return !NOT_APP_PAGES.test(path) && (request.headers.accept ?? '').includes('text/html');
}

/** A CORS preflight: what a browser sends before a cross-origin request (@fastify/cors answers it). */
function isPreflight(request: FastifyRequest): boolean {
  return request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
}

/** `OPTIONS` on a route: 204 and the methods it allows; 404 on a path that is no route. */
function answerOptions(reply: FastifyReply, path: string, allowed: readonly string[]): FastifyReply {
  if (allowed.length === 0) return sendProblem(reply, 404, 'route_not_found', `There is no route at ${path}.`);
  return reply
    .code(204)
    .header('allow', [...allowed, 'OPTIONS'].join(', '))
    .send();
}
