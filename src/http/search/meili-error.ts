import type { FastifyReply } from 'fastify';

/**
 * An error of the search engine endpoint, answered in Meilisearch's format
 * (`{message, code, type, link}`), so its clients read it as they read Meilisearch's.
 */
export class MeiliError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly type: 'invalid_request' | 'auth' | 'internal',
    message: string,
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

export function sendMeiliError(reply: FastifyReply, error: MeiliError): FastifyReply {
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ message: error.message, code: error.code, type: error.type, link: `https://docs.meilisearch.com/errors#${error.code}` }));
}
