import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { addUser, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';

// Which address the login limits count (KURA_TRUST_PROXY off and on), and the account lock that
// does not lock the owner out; real PostgreSQL, requests injected with their socket's address.
const LIMIT = 3;
const env = { KURA_LOGIN_RATE_LIMIT: String(LIMIT) };
let direct: TestApp;
let proxied: TestApp;
const logLines: Array<Record<string, unknown>> = [];
const logStream = { write: (line: string) => void logLines.push(JSON.parse(line)) };

beforeAll(async () => {
  direct = await startTestApp({ logLevel: 'warn', logStream }, { env });
  // the proxy is 10.0.0.2 (inside 10.0.0.0/29); one on this machine would be "loopback"
  const { trustProxy } = parseConfig({ KURA_TRUST_PROXY: '10.0.0.0/29, loopback' });
  proxied = await startTestApp({ trustProxy }, { env });
  for (const kura of [direct, proxied]) {
    await addUser(kura, 'alice');
    await addUser(kura, 'bob');
  }
});
afterAll(async () => {
  await direct.close();
  await proxied.close();
});

/** A login from the socket address `from`, with the headers given (an X-Forwarded-For, say). */
const login = (kura: TestApp, from: string, username: string, password: string, headers: Record<string, string> = {}) =>
  kura.app.inject({ method: 'POST', url: '/auth/local', remoteAddress: from, headers: { ...SAME_ORIGIN, ...headers }, payload: { username, password } });
const statuses = (responses: Array<{ statusCode: number }>) => responses.map((r) => r.statusCode);
/** Fails LIMIT logins to accounts nobody has, so only the address's count grows. */
const failFrom = async (kura: TestApp, from: string, headers: (i: number) => Record<string, string> = () => ({})) => {
  for (let i = 0; i < LIMIT; i++) expect((await login(kura, from, `nobody-${from}-${i}`, 'wrong-password', headers(i))).statusCode).toBe(401);
};

describe('with KURA_TRUST_PROXY off (the default)', () => {
  it("counts the socket's address: an X-Forwarded-For header does not dodge the per-address limit", async () => {
    await failFrom(direct, '127.0.0.1');
    const dodge = await login(direct, '127.0.0.1', 'alice', 'alice-password', { 'x-forwarded-for': '203.0.113.10' });
    expect(dodge.statusCode).toBe(429);
    expect(dodge.json()).toMatchObject({ code: 'too_many_requests' });
    // a header naming an address that failed does not lock that address either
    expect((await login(direct, '203.0.113.10', 'alice', 'alice-password', { 'x-forwarded-for': '127.0.0.1' })).statusCode).toBe(200);
  });
});

describe('with KURA_TRUST_PROXY listing the proxy', () => {
  it('counts the address the proxy appended, whatever the client wrote before it', async () => {
    const via = (leftmost: string) => ({ 'x-forwarded-for': `${leftmost}, 198.51.100.7` });
    await failFrom(proxied, '10.0.0.2', (i) => via(`203.0.113.${i + 1}`));
    expect((await login(proxied, '10.0.0.2', 'alice', 'alice-password', via('203.0.113.10'))).statusCode).toBe(429);
    // another client behind the same proxy is not held back
    expect((await login(proxied, '10.0.0.2', 'alice', 'alice-password', { 'x-forwarded-for': '198.51.100.8' })).statusCode).toBe(200);
  });

  it('skips every listed proxy from the right: the client is the first hop that is not one', async () => {
    const chain = (client: string) => ({ 'x-forwarded-for': `203.0.113.66, ${client}, 10.0.0.3` }); // two proxies, both listed
    await failFrom(proxied, '127.0.0.1', () => chain('198.51.100.30'));
    expect((await login(proxied, '127.0.0.1', 'alice', 'alice-password', chain('198.51.100.30'))).statusCode).toBe(429);
    expect((await login(proxied, '127.0.0.1', 'alice', 'alice-password', chain('198.51.100.31'))).statusCode).toBe(200);
  });

  it('takes an address outside the list as the client itself, whatever X-Forwarded-For it sends', async () => {
    await failFrom(proxied, '192.0.2.99', (i) => ({ 'x-forwarded-for': `198.51.100.${20 + i}` }));
    expect((await login(proxied, '192.0.2.99', 'alice', 'alice-password', { 'x-forwarded-for': '198.51.100.99' })).statusCode).toBe(429);
    // the addresses it named were not charged: through the proxy, one of them logs in
    expect((await login(proxied, '10.0.0.2', 'alice', 'alice-password', { 'x-forwarded-for': '198.51.100.20' })).statusCode).toBe(200);
  });
});

describe('the per-account lock', () => {
  it("locks an account against the attacker's addresses, not against its owner elsewhere", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await login(direct, '192.0.2.66', 'bob', `guess-${i}-xx`)).statusCode).toBe(401);
    logLines.length = 0;
    const owner = await login(direct, '198.51.100.50', 'bob', 'bob-password');
    expect(owner.statusCode).toBe(200);
    expect(owner.json()).toMatchObject({ id: 'bob' });
    expect((await login(direct, '198.51.100.50', 'bob', 'bob-password')).statusCode).toBe(200); // again, from the same place

    const attacker = await login(direct, '192.0.2.66', 'bob', 'bob-password');
    expect(attacker.statusCode).toBe(429);
    // a second attacker address gets one guess, then the lock holds for it too, right password or not
    expect((await login(direct, '192.0.2.67', 'bob', 'guess-x-xx')).statusCode).toBe(401);
    const second = await login(direct, '192.0.2.67', 'bob', 'bob-password');
    expect(second.statusCode).toBe(429);
    expect(second.json().detail).toMatch(/for this account/);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(800);
    expect((await login(direct, '192.0.2.67', 'alice', 'alice-password')).statusCode).toBe(200); // the address is not blocked

    const warnings = logLines.filter((line) => line.level === 40).map(({ msg, username, ip }) => ({ msg, username, ip }));
    expect(warnings).toEqual([
      { msg: expect.stringMatching(/^login let through a locked account/), username: 'bob', ip: '198.51.100.50' },
      { msg: expect.stringMatching(/^login let through a locked account/), username: 'bob', ip: '198.51.100.50' },
      { msg: expect.stringMatching(/^login refused: too many failed logins from this address/), username: 'bob', ip: '192.0.2.66' },
      { msg: expect.stringMatching(/^login refused: the account is locked/), username: 'bob', ip: '192.0.2.67' },
    ]);
  });

  it('gives a burst of parallel guesses from one address no more tries than the limit', async () => {
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => login(direct, '192.0.2.80', 'alice', `burst-${i}-xx`)));
    expect(statuses(burst).filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses(burst).filter((s) => s === 429)).toHaveLength(8 - LIMIT);
  });

  it('gives a burst at a locked account from a fresh address one guess', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await login(direct, '192.0.2.90', 'carol', `guess-${i}-xx`)).statusCode).toBe(401);
    const burst = await Promise.all(Array.from({ length: 3 }, (_, i) => login(direct, '192.0.2.91', 'carol', `burst-${i}-xx`)));
    expect(statuses(burst).sort()).toEqual([401, 429, 429]);
  });
});
