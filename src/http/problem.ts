import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import Type from 'typebox';
import { AppError, type ErrorKind } from '../core/errors.js';

/** RFC 9457 problem details; `code` is stable and snake_case. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
  },
  { description: 'application/problem+json (RFC 9457)' },
);

/** Documents the error answers of a route; errors are written as strings, never through this schema. */
export const problemResponses = { '4xx': ProblemSchema, '5xx': ProblemSchema };

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

const CHECKED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Writes a problem document; every error Kura answers goes through here. */
export function sendProblem(reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  const body = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, code };
  return reply.code(status).type('application/problem+json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * Answers every error as problem JSON: AppErrors by kind, request validation as 400 naming the
 * parameter and its rule, unknown routes 404, known routes with the wrong method 405.
 * Anything unexpected is logged with its stack and answered `internal_error` without internals.
 */
export function installProblemHandling(app: FastifyInstance): void {
  const knownRoutes = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethod[];
    for (const method of methods) {
      if (method !== 'OPTIONS' && !knownRoutes.hasRoute(method, route.url)) knownRoutes.on(method, route.url, () => undefined);
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = CHECKED_METHODS.filter((method) => knownRoutes.find(method, path) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, 405, 'method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`);
    }
    return sendProblem(reply, 404, 'route_not_found', `There is no route ${request.method} ${path}.`);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
      return sendProblem(reply, STATUS_OF_KIND[error.kind], error.code, error.detail);
    }
    if (error.validation) return sendProblem(reply, 400, codeOfContext(error.validationContext), validationDetail(error, request));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return sendProblem(reply, status, snakeCase(STATUS_CODES[status] ?? 'bad_request'), error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, 500, 'internal_error', 'Kura failed to answer this request; the error is in its log.');
  });
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
  const where = { querystring: 'Query parameter', params: 'Path parameter', body: 'Field', headers: 'Header' }[
    error.validationContext ?? 'querystring'
  ];
  const schema = request.routeOptions.schema?.[error.validationContext as 'querystring'] as
    | { properties?: Record<string, { description?: string }> }
    | undefined;
  const rule = schema?.properties?.[name]?.description;
  const message = first.keyword === 'additionalProperties' ? 'is not known' : first.message ?? 'is invalid';
  return `${where ?? 'Parameter'} "${name || (first.params as { additionalProperty?: string }).additionalProperty}" ${message}${rule ? ` (rule: ${rule})` : ''}.`;
}

function snakeCase(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
}
