import type { LightMyRequestResponse } from 'fastify';
import { addLocalUser } from '../../src/core/accounts/add-local-user.js';
import { SESSION_COOKIE } from '../../src/http/auth/cookies.js';
import { TEST_PUBLIC_URL, type TestApp } from './app.js';

/** Headers of a browser page of the instance itself. */
export const SAME_ORIGIN = { origin: TEST_PUBLIC_URL };

/** Creates a local account through the same use case as `kura user add`. */
export async function addUser(kura: TestApp, name: string, options: { admin?: boolean; password?: string } = {}): Promise<void> {
  await addLocalUser(kura.accounts, { name, password: options.password ?? `${name}-password`, role: options.admin ? 'admin' : 'user' });
}

/** The session cookie a response set, as a `cookie` request header value. */
export function sessionCookieOf(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE);
  if (cookie === undefined) throw new Error(`no session cookie in ${response.statusCode} ${response.body}`);
  return `${SESSION_COOKIE}=${cookie.value}`;
}

/** Logs a local account in through POST /auth/local; resolves with its `cookie` header. */
export async function logIn(kura: TestApp, name: string, password = `${name}-password`): Promise<string> {
  const response = await kura.app.inject({ method: 'POST', url: '/auth/local', headers: SAME_ORIGIN, payload: { username: name, password } });
  if (response.statusCode !== 200) throw new Error(`login of ${name} answered ${response.statusCode} ${response.body}`);
  return sessionCookieOf(response);
}

/** A new API token of a logged-in user, through POST /api/tokens. */
export async function createToken(kura: TestApp, cookie: string): Promise<{ id: string; token: string }> {
  const response = await kura.app.inject({ method: 'POST', url: '/api/tokens', headers: { ...SAME_ORIGIN, cookie }, payload: { name: 'script' } });
  if (response.statusCode !== 201) throw new Error(`token creation answered ${response.statusCode} ${response.body}`);
  return response.json();
}
