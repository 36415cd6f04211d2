// Decisions: docs/decisions/0001-errors-are-problem-json.md, docs/decisions/0003-cors-and-options.md
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { CHANNEL_ID_MAX_LENGTH } from '../core/vocabulary.js';
import { AppError, type ErrorKind } from '../core/errors.js';
import { resourceExhaustion } from './resource-exhaustion.js';
import { PROBLEM_MEDIA_TYPE, problemResponses } from './responses.schema.js';

const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  gone: 410,
  conflict: 409,
  range_not_satisfiable: 416,
  rate_limited: 429,
  unavailable: 503,
};

/**
 * The codes of refusals made before any use case runs (by Fastify, or by Node's HTTP parser in
 * client-error.ts), beside core's ErrorCode: together the closed set clients can rely on.
 */
export type FrameworkCode =
  | 'malformed_url'
  | 'path_parameter_too_long'
  | 'invalid_body'
  | 'malformed_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'invalid_content_length'
  | 'invalid_header'
  | 'malformed_request'
  | 'headers_too_large'
  | 'url_too_long'
  | 'request_timeout'
  | 'internal_error';

const CHECKED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Writes a problem document; every error Kura answers goes through here. */
export function sendProblem(reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  const body = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, code };
  return reply.code(status).type(`${PROBLEM_MEDIA_TYPE}; charset=utf-8`).send(JSON.stringify(body));
}

/** Answers an AppError: the status of its kind, with Retry-After when it says when to try again. */
function sendAppError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  return sendProblem(reply, STATUS_OF_KIND[error.kind], error.code, error.detail);
}

/** Answers 204 without a body (the routes document it with NoContentSchema). */
export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/**
 * Answers every error as problem JSON: AppErrors by kind, request validation as 400 naming the
 * parameter and its rule, unknown routes 404, known routes with the wrong method 405; a browser's
 * page load of an unknown path outside the API is answered `notFoundPage` (the web UI, which says
 * the page is not found) with 404.
 * A full disk or a PostgreSQL short of resources is 503 with Retry-After (resource-exhaustion.ts).
 * Anything unexpected is logged with its stack and answered `internal_error` without internals.
 * `OPTIONS` that is not a CORS preflight answers 204 with `Allow`; every route documents its
 * errors as problem JSON unless it declares its own.
 */
export function installProblemHandling(app: FastifyInstance, options: { notFoundPage?: string | null } = {}): void {
  const knownRoutes = FindMyWay();
  const allowedOn = (path: string) => CHECKED_METHODS.filter((method) => knownRoutes.find(method, path) !== null);
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethod[];
    for (const method of methods) {
      if (method !== 'OPTIONS' && !knownRoutes.hasRoute(method, route.url)) knownRoutes.on(method, route.url, () => undefined);
    }
    documentProblems(route);
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
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, 405, 'method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`);
    }
    if (options.notFoundPage && wantsAppPage(request, path)) {
      return reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(options.notFoundPage);
    }
    return sendProblem(reply, 404, 'route_not_found', `There is no route ${request.method} ${path}.`);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return sendAppError(reply, error);
    const exhausted = resourceExhaustion(error);
    if (exhausted !== null) {
      // the operator's to mend (free space, raise a limit): logged whole, answered in words
      request.log.error({ err: error }, `request failed: ${exhausted.detail}`);
      return sendAppError(reply, exhausted);
    }
    if (error.validation) return sendProblem(reply, 400, codeOfContext(error.validationContext), validationDetail(error, request));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const known = frameworkProblem(error, request);
      return sendProblem(reply, status, known?.code ?? snakeCase(STATUS_CODES[status] ?? 'bad_request'), known?.detail ?? error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, 500, 'internal_error', 'Kura failed to answer this request; the error is in its log.');
  });
}

/** Paths the web UI never shows: the API, logins, feeds, built files and the operator's probes stay problem JSON. */
const NOT_APP_PAGES = /^\/(api|auth|feeds|assets|healthz|readyz|metrics)(\/|$)/;

/** A browser's page load (GET or HEAD asking for HTML) of a path the web UI could show. */
function wantsAppPage(request: FastifyRequest, path: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  return !NOT_APP_PAGES.test(path) && (request.headers.accept ?? '').includes('text/html');
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/';
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

/**
 * Adds the problem answers to a documented route that declares no `4xx` of its own: any route can
 * refuse a request before its handler runs (a body too large, of a type it does not take) or fail.
 * The schema is replaced, not changed: routes share their response objects.
 */
function documentProblems(route: { schema?: { hide?: boolean; response?: unknown } }): void {
  const response = (route.schema?.response ?? {}) as Record<string, unknown>;
  if (route.schema?.hide === true || '4xx' in response) return;
  route.schema = { ...route.schema, response: { ...problemResponses, ...response } };
}

/** The longest path parameter routed (a channel id, CHANNEL_ID_MAX_LENGTH); longer ones are refused with 414. */
export const MAX_PATH_PARAMETER_LENGTH = CHANNEL_ID_MAX_LENGTH;

/**
 * Fastify's own refusals of a request (before any route code runs), each with a stable code and
 * a sentence a person understands instead of Fastify's wording.
 */
const FRAMEWORK_PROBLEMS: Readonly<Record<string, { code: FrameworkCode; detail: (request: FastifyRequest) => string }>> = {
  FST_ERR_BAD_URL: { code: 'malformed_url', detail: () => 'The path is not valid percent-encoded UTF-8.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'path_parameter_too_long', detail: () => `A path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters.` },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_body',
    detail: (request) =>
      `The request body is empty although its Content-Type is ${request.headers['content-type']?.startsWith('text/plain') ? 'text/plain' : 'application/json'}; send a JSON object, or no Content-Type.`,
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'malformed_json', detail: () => 'The request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: unsupportedMediaTypeDetail },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', detail: () => 'The request body is larger than Kura accepts (1 MiB; 64 KiB for a form).' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_content_length', detail: () => 'The Content-Length header does not match the body sent.' },
};

/** The stable code and a readable detail of one of Fastify's own request errors; null for any other error. */
export function frameworkProblem(error: { code?: string }, request: FastifyRequest): { code: string; detail: string } | null {
  const known = error.code === undefined ? undefined : FRAMEWORK_PROBLEMS[error.code];
  return known === undefined ? null : { code: known.code, detail: known.detail(request) };
}

/** What the route takes (its schema's `consumes`, else JSON when it reads a body), and what it was sent. */
function unsupportedMediaTypeDetail(request: FastifyRequest): string {
  const type = request.headers['content-type'];
  // a media type is short; a header of kilobytes is echoed cut, not whole
  const sent = type === undefined ? 'a body without a Content-Type' : `"${type.length > 100 ? `${type.slice(0, 100)}…` : type}"`;
  const schema = request.routeOptions.schema as { body?: unknown; consumes?: readonly string[] } | undefined;
  const takes = schema?.consumes ?? (schema?.body === undefined ? [] : ['application/json']);
  const route = `${request.method} ${pathOf(request)}`;
  if (takes.length === 0) return `${route} reads no request body; send none, not ${sent}.`;
  return `${route} takes a body of type ${takes.join(' or ')}, not ${sent}.`;
}

function codeOfContext(context: string | undefined): string {
  return context === 'body' ? 'invalid_body' : 'invalid_parameter';
}

/** "Query parameter "limit" must be >= 1 (rule: …)": the parameter, what is wrong, and the rule. */
function validationDetail(error: FastifyError, request: FastifyRequest): string {
  const first = error.validation?.[0];
  if (first === undefined) return error.message;
  const missing = (first.params as { missingProperty?: string }).missingProperty;
  const name = missing ?? first.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  const where = { querystring: 'Query parameter', params: 'Path parameter', body: 'Field', headers: 'Header' }[error.validationContext ?? 'querystring'];
  const schema = request.routeOptions.schema?.[error.validationContext as 'querystring'] as
    { properties?: Record<string, { description?: string }> } | undefined;
  if (name === '' && missing === undefined && first.keyword !== 'additionalProperties' && error.validationContext === 'body') return bodyDetail(first);
  const rule = schema?.properties?.[name]?.description;
  const message = first.keyword === 'additionalProperties' ? 'is not known' : (first.message ?? 'is invalid');
  return `${where ?? 'Parameter'} "${name || (first.params as { additionalProperty?: string }).additionalProperty}" ${message}${rule ? ` (rule: ${rule})` : ''}.`;
}

/** A violation of the body as a whole: it is absent, or not the JSON object the route reads. */
function bodyDetail(violation: { keyword: string; params: Record<string, unknown>; message?: string }): string {
  if (violation.keyword === 'type' && violation.params.type === 'object') return 'The request body must be a JSON object.';
  return `The request body ${violation.message ?? 'is invalid'}.`;
}

function snakeCase(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}
