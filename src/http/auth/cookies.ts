import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { SESSION_TTL_SECONDS } from '../../core/accounts/account.js';
import { LOGIN_ATTEMPT_TTL_SECONDS } from '../../core/accounts/begin-login.js';

export const SESSION_COOKIE = 'kura_session';
/** The attempt id of a login in progress at an external provider. */
export const LOGIN_COOKIE = 'kura_login';

/** Cookie attributes: never readable by scripts, not sent on cross-site subrequests, Secure under https. */
function base(publicUrl: string): CookieSerializeOptions {
  return { httpOnly: true, sameSite: 'lax', secure: publicUrl.startsWith('https:'), path: '/' };
}

export function setSessionCookie(reply: FastifyReply, publicUrl: string, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, { ...base(publicUrl), maxAge: SESSION_TTL_SECONDS });
}

export function clearSessionCookie(reply: FastifyReply, publicUrl: string): void {
  reply.clearCookie(SESSION_COOKIE, base(publicUrl));
}

export function setLoginCookie(reply: FastifyReply, publicUrl: string, attemptId: string): void {
  reply.setCookie(LOGIN_COOKIE, attemptId, { ...base(publicUrl), path: '/auth', maxAge: LOGIN_ATTEMPT_TTL_SECONDS });
}

export function clearLoginCookie(reply: FastifyReply, publicUrl: string): void {
  reply.clearCookie(LOGIN_COOKIE, { ...base(publicUrl), path: '/auth' });
}
