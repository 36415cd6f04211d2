import { hashSecret, roleOf, SESSION_REFRESH_SECONDS, SESSION_TTL_SECONDS, type Caller } from './account.js';
import type { ApiTokenRepo, FeedTokenRepo, SessionRepo } from './ports.js';

/**
 * Who is calling: a bearer token wins over a session cookie. Null when neither is valid (unknown,
 * revoked or expired). `sessionRefreshed` says the session's expiry moved, so its cookie should too.
 */
export async function authenticate(
  deps: { sessions: SessionRepo; apiTokens: ApiTokenRepo },
  request: { bearerToken: string | undefined; sessionToken: string | undefined; admins: ReadonlySet<string> },
): Promise<{ caller: Caller; sessionRefreshed: boolean } | null> {
  if (request.bearerToken !== undefined) {
    const user = await deps.apiTokens.use(hashSecret(request.bearerToken));
    return user === null ? null : { caller: { user, role: roleOf(user, request.admins), via: 'token' }, sessionRefreshed: false };
  }
  if (request.sessionToken === undefined) return null;
  const session = await deps.sessions.use(hashSecret(request.sessionToken), SESSION_TTL_SECONDS, SESSION_REFRESH_SECONDS);
  if (session === null) return null;
  return { caller: { user: session.user, role: roleOf(session.user, request.admins), via: 'session' }, sessionRefreshed: session.refreshed };
}

/** Whether a feed token is a user's current one (a rotated-away or unknown token is not). */
export async function isFeedToken(deps: { feedTokens: FeedTokenRepo }, token: string): Promise<boolean> {
  return (await deps.feedTokens.use(hashSecret(token))) !== null;
}

/** A session or an API token, by the hash Kura keeps of it. */
export interface Credential {
  via: 'session' | 'token';
  hash: Buffer;
}

/** Whether a credential still authenticates (a revoked token or an ended or expired session does not); its use is noted as a request's is. */
export async function isCredentialLive(deps: { sessions: SessionRepo; apiTokens: ApiTokenRepo }, credential: Credential): Promise<boolean> {
  if (credential.via === 'token') return (await deps.apiTokens.use(credential.hash)) !== null;
  return (await deps.sessions.use(credential.hash, SESSION_TTL_SECONDS, SESSION_REFRESH_SECONDS)) !== null;
}
