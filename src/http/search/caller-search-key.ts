// Decisions: docs/decisions/0091-private-search-keys-per-caller.md
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { hashSecret, type Caller } from '../../core/accounts/account.js';
import type { Credential } from '../../core/accounts/authenticate.js';
import { SESSION_COOKIE } from '../auth/cookies.js';
import { bearerToken } from '../auth/guard.js';

/** How long a private instance's search key works at most; the web app asks again when it is refused. */
export const CALLER_KEY_SECONDS = 3600;
/** Begins every caller-bound key. */
const PREFIX = 'kura_search_';

/** The credential (session cookie or API token) a request was authenticated with, as its hash; null for none. */
export function credentialOf(request: FastifyRequest, caller: Caller): Credential | null {
  const secret = caller.via === 'token' ? bearerToken(request) : request.cookies[SESSION_COOKIE];
  return secret === undefined ? null : { via: caller.via, hash: hashSecret(secret) };
}

/**
 * A search key that names the credential it was read with and when it stops working, signed
 * with the instance's stored search key (which a private instance never hands out).
 */
export function issueCallerKey(secret: string, credential: Credential, expiresAt: number): string {
  const payload = `${credential.via}.${credential.hash.toString('base64url')}.${expiresAt}`;
  return `${PREFIX}${Buffer.from(payload).toString('base64url')}.${sign(secret, payload)}`;
}

/** The credential a key names, if `secret` signed it and it has not expired (`now` in Unix seconds); null otherwise. */
export function readCallerKey(secret: string, key: string, now: number): Credential | null {
  if (!key.startsWith(PREFIX)) return null;
  const [encoded, signature, extra] = key.slice(PREFIX.length).split('.');
  if (encoded === undefined || signature === undefined || extra !== undefined) return null;
  const payload = Buffer.from(encoded, 'base64url').toString();
  const given = Buffer.from(signature);
  const wanted = Buffer.from(sign(secret, payload));
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
  const [via, hash, expiresAt] = payload.split('.');
  if ((via !== 'token' && via !== 'session') || hash === undefined || !(Number(expiresAt) > now)) return null;
  return { via, hash: Buffer.from(hash, 'base64url') };
}

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}
