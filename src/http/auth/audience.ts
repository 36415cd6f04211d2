// Decisions: docs/decisions/0010-one-record-presenter-per-audience.md
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../core/accounts/account.js';
import type { Audience } from '../../core/sources/public-url.js';
import type { Guard } from './guard.js';

/** Whom a view is for: the admin sees URLs and errors whole, any other caller (or none) the public's view. */
export function audienceOfCaller(caller: Caller | null): Audience {
  return caller?.role === 'admin' ? 'admin' : 'public';
}

/** The audience of a public route's request: its credentials are looked at only when it carries some. */
export async function audienceOf(guard: Pick<Guard, 'optional'>, request: FastifyRequest, reply: FastifyReply): Promise<Audience> {
  return audienceOfCaller(await guard.optional(request, reply));
}
