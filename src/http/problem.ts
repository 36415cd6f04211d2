// Decisions: docs/decisions/0001-errors-are-problem-json.md
import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import { AppError, type ErrorKind } from '../core/errors.js';
import { PROBLEM_MEDIA_TYPE } from './responses.schema.js';

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

/** Writes a problem document; every error Kura answers goes through here. */
export function sendProblem(reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  const body = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, code };
  return reply.code(status).type(`${PROBLEM_MEDIA_TYPE}; charset=utf-8`).send(JSON.stringify(body));
}

/** Answers an AppError: the status of its kind, with Retry-After when it says when to try again. */
export function sendAppError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  return sendProblem(reply, STATUS_OF_KIND[error.kind], error.code, error.detail);
}

/** Answers 204 without a body (the routes document it with NoContentSchema). */
export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
