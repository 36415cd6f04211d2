// Decisions: docs/decisions/0094-builtin-engine-as-meilisearch-bounded.md
import type { FastifyReply } from 'fastify';
import { AppError } from '../../core/errors.js';

/**
 * An error of the search engine endpoint, answered in Meilisearch's format
 * (`{message, code, type, link}`), so its clients read it as they read Meilisearch's.
 */
export class MeiliError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly type: 'invalid_request' | 'auth' | 'internal' | 'system',
    message: string,
    /** Sent as Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'MeiliError';
  }
}

export function invalidRequest(code: string, message: string): MeiliError {
  return new MeiliError(400, code, 'invalid_request', message);
}

export const MISSING_KEY = () =>
  new MeiliError(401, 'missing_authorization_header', 'auth', 'The Authorization header is missing. It must use the bearer authorization method.');
export const INVALID_KEY = () => new MeiliError(403, 'invalid_api_key', 'auth', 'The provided API key is invalid.');

/** The engine's own refusals (core's AppError): 400 for a query it cannot search, 503 while its index loads (with Retry-After). */
export function fromAppError(error: AppError): MeiliError {
  if (error.kind === 'unavailable') return new MeiliError(503, error.code, 'system', error.detail, error.retryAfterSeconds);
  if (error.kind === 'invalid') return invalidRequest(error.code, error.detail);
  return new MeiliError(500, 'internal', 'internal', 'An internal error has occurred.');
}

export function sendMeiliError(reply: FastifyReply, error: MeiliError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ message: error.message, code: error.code, type: error.type, link: `https://docs.meilisearch.com/errors#${error.code}` }));
}

/** Fastify's refusals of a body, by Meilisearch's codes for the same refusals. */
const BODY_ERRORS: Readonly<Record<string, { status: number; code: string; message: string }>> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'missing_payload', message: 'A json payload is missing.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_payload', message: 'The json payload provided is malformed.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'invalid_content_type', message: 'The Content-Type header is not supported: send application/json.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', message: 'The payload is larger than 1 MiB.' },
};

/**
 * Any error of the search engine routes as Meilisearch would answer it: a schema violation of a
 * search parameter is `invalid_search_<parameter>` (others `bad_request`), a body Fastify could
 * not read has Meilisearch's payload codes, an AppError keeps its code (fromAppError), anything
 * else unexpected is `internal` (500).
 */
export function asMeiliError(error: Error & { statusCode?: number; code?: string; validation?: unknown }): MeiliError {
  if (error instanceof MeiliError) return error;
  if (error instanceof AppError) return fromAppError(error);
  const violation = (error.validation as Array<{ instancePath: string; message?: string; params: { missingProperty?: string } }> | undefined)?.[0];
  if (violation !== undefined) {
    const path = violation.instancePath.split('/').filter((s) => s !== '');
    if (violation.params.missingProperty !== undefined) path.push(violation.params.missingProperty);
    const where = path.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');
    const message =
      where === '' ? 'Invalid value type: the payload must be a JSON object.' : `Invalid value at \`${where}\`: ${violation.message ?? 'is invalid'}.`;
    return invalidRequest(codeOfParameter(path), message);
  }
  const body = error.code === undefined ? undefined : BODY_ERRORS[error.code];
  if (body !== undefined) return new MeiliError(body.status, body.code, 'invalid_request', body.message);
  // a client over its rate (client-rate-limit.ts): Meilisearch's code for searches it will not take now
  if (error.statusCode === 429) return new MeiliError(429, 'too_many_search_requests', 'system', error.message);
  if (error.statusCode !== undefined && error.statusCode < 500) return new MeiliError(error.statusCode, 'bad_request', 'invalid_request', error.message);
  return new MeiliError(500, 'internal', 'internal', 'An internal error has occurred.');
}

const SEARCH_PARAMETERS = new Set([
  'q',
  'limit',
  'offset',
  'page',
  'hitsPerPage',
  'filter',
  'sort',
  'attributesToRetrieve',
  'attributesToHighlight',
  'highlightPreTag',
  'highlightPostTag',
]);

/** `invalid_search_q` for `.q` (also inside `.queries[n]`), `invalid_multi_search_queries` for `.queries`, else `bad_request`. */
function codeOfParameter(path: readonly string[]): string {
  const name = [...path].reverse().find((s) => !/^\d+$/.test(s));
  if (name !== undefined && SEARCH_PARAMETERS.has(name)) return `invalid_search_${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
  if (name === 'queries') return 'invalid_multi_search_queries';
  return 'bad_request';
}
