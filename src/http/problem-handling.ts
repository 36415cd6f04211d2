import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { sendAppError, sendProblem } from './problem.js';
import { codeOfContext, frameworkProblem, snakeCase, validationDetail } from './request-problems.js';
import { resourceExhaustion } from './resource-exhaustion.js';
import { problemResponses } from './responses.schema.js';
import { installRouteAnswers } from './route-answers.js';

/**
 * Answers every error as problem JSON: AppErrors by kind, request validation as 400 naming the
 * parameter and its rule, what no route answers as route-answers.ts says.
 * A full disk or a PostgreSQL short of resources is 503 with Retry-After (resource-exhaustion.ts).
 * Anything unexpected is logged with its stack and answered `internal_error` without internals.
 * Every route documents its errors as problem JSON unless it declares its own.
 */
export function installProblemHandling(app: FastifyInstance, options: { notFoundPage?: ((request: FastifyRequest) => string) | null } = {}): void {
  app.addHook('onRoute', documentProblems);
  installRouteAnswers(app, options);
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
