import { getJson, send, type Caller } from './api.js';

/** Who is logged in: `undefined` while the first look is under way. */
export const session = $state<{ user: Caller | null | undefined }>({ user: undefined });

/** Asks who is logged in; nobody is answered null (200), so an anonymous visit logs no failed request. */
export async function loadSession(): Promise<void> {
  try {
    session.user = await getJson<Caller | null>('/api/user?optional=true');
  } catch {
    session.user = null;
  }
}

export async function logIn(username: string, password: string): Promise<void> {
  session.user = await send<Caller>('POST', '/auth/local', { username, password });
}

/** Creates the first admin of a fresh instance with the setup token from the server log, and logs it in. */
export async function setUp(token: string, username: string, password: string): Promise<void> {
  session.user = await send<Caller>('POST', '/auth/setup', { token, username, password });
}

export async function logOut(): Promise<void> {
  await send('POST', '/auth/logout');
  session.user = null;
}
