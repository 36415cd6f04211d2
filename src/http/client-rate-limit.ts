import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';

/** How many requests one client (its address) may send to a group of routes in a window. */
export interface ClientRate {
  max: number;
  windowSeconds: number;
  /** The requests in words, for the refusal: "frame requests". */
  what: string;
}

/**
 * Limits each client's requests to every route registered after this in `app`'s context (and its
 * children), counted in this process's memory (@fastify/rate-limit): for routes cheap enough to
 * be sent in bursts but not free (a frame, a search), where a count in PostgreSQL would cost
 * more than the request. Refused: 429, `too_many_requests`, `Retry-After` (a problem JSON, or
 * the context's own error format).
 */
export async function limitEachClient(app: FastifyInstance, rate: ClientRate): Promise<void> {
  await app.register(rateLimit, {
    max: rate.max,
    timeWindow: rate.windowSeconds * 1000,
    keyGenerator: (request) => request.ip,
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
    errorResponseBuilder: (_request, context) =>
      Object.assign(
        new Error(`Too many ${rate.what}: at most ${rate.max} per ${rate.windowSeconds} s from one client; try again in ${Math.ceil(context.ttl / 1000)} s.`),
        {
          statusCode: 429,
        },
      ),
  });
}
