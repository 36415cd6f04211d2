import { afterEach, describe, expect, it } from 'vitest';
import { createOutboundClient } from '../../src/adapters/outbound/outbound-client.js';
import { createHelixClient } from '../../src/adapters/twitch/helix-client.js';
import { createTwitchHelixSignal } from '../../src/adapters/follows/twitch-helix-signal.js';
import type { Follow } from '../../src/core/follows/follow.js';
import { startHelixStandIn, type HelixStandIn, type HelixStandInOptions } from '../support/helix-stand-in.js';

// Twitch follows' signal and Kura's Helix client (decision 0135) against the STAND-IN Helix
// (test/support/helix-stand-in.ts): batching, the app token's life, 401 and the rate limit.
let twitch: HelixStandIn | null = null;
afterEach(async () => {
  await twitch?.close();
  twitch = null;
});

/** A clock both the stand-in and Kura read, moved by the test. */
function clock() {
  let offset = 0;
  return { now: () => Date.now() + offset, pass: (ms: number) => void (offset += ms) };
}

/** Kura's client of the stand-in; its waits are noted, and pass the test's clock when there is one. */
async function helixFor(options: HelixStandInOptions = {}, waits: number[] = [], pass?: (ms: number) => void) {
  twitch = await startHelixStandIn(options);
  const app = { clientId: twitch.clientId, clientSecret: twitch.clientSecret, apiUrl: twitch.apiUrl, authUrl: twitch.authUrl };
  const sleep = async (ms: number) => void (waits.push(ms), pass?.(ms));
  return createHelixClient(app, { outbound: createOutboundClient({ allowPrivate: true }), sleep, ...(options.now ? { now: options.now } : {}) });
}

const followOf = (login: string) => ({ url: `https://www.twitch.tv/${login}` }) as Follow;

describe('the helix signal of Twitch follows (Helix stand-in)', () => {
  it('asks about every followed channel in requests of a hundred logins, once for all the looks of a round', async () => {
    const helix = await helixFor();
    const logins = Array.from({ length: 250 }, (_, i) => `channel_${i}`);
    for (const login of logins) twitch!.users.set(login, login.toUpperCase());
    twitch!.live.set('channel_7', { streamId: '41234567890', title: '朝の雑談 ☀', displayName: 'Seven' });
    twitch!.live.set('channel_201', { streamId: '41234567891', title: 'speedrun' });
    const signal = createTwitchHelixSignal({
      helix,
      withoutClient: 'no credentials',
      followed: async () => logins.map((login) => `https://www.twitch.tv/${login}`),
      freshMs: 10_000,
    });
    const looks = await Promise.all(logins.map((login) => signal.look(followOf(login))));
    const streams = twitch!.requests.filter((request) => request.path === '/helix/streams');
    expect(streams.map((request) => request.logins.length)).toEqual([100, 100, 50]);
    expect(new Set(streams.flatMap((request) => request.logins)).size).toBe(250);
    expect(looks[7]).toEqual([
      {
        url: 'https://www.twitch.tv/channel_7',
        id: 'twitch-41234567890',
        title: '朝の雑談 ☀',
        scheduledStart: null,
        liveStatus: 'live',
        membersOnly: null,
        channelId: 'twitch:channel_7',
        channelName: 'Seven',
      },
    ]);
    expect(looks[201]?.[0]?.id).toBe('twitch-41234567891');
    expect(looks.filter((look) => look.length > 0)).toHaveLength(2);
    // the same round, looked at one by one, asks nothing more
    for (const login of logins.slice(0, 20)) await signal.look(followOf(login));
    expect(twitch!.requests.filter((request) => request.path === '/helix/streams')).toHaveLength(3);
  });

  it('asks again once its answer is older than half the interval or its follow was brought forward, and fails every look without credentials, saying how to get them', async () => {
    const time = clock();
    const helix = await helixFor({ now: time.now });
    twitch!.users.set('alice', 'Alice');
    const signal = createTwitchHelixSignal({ helix, withoutClient: 'x', followed: async () => ['https://www.twitch.tv/alice'], freshMs: 7_500, now: time.now });
    expect(await signal.look(followOf('alice'))).toEqual([]);
    twitch!.live.set('alice', { streamId: '1', title: 'on' });
    time.pass(7_000);
    expect(await signal.look(followOf('alice'))).toEqual([]);
    time.pass(1_000);
    expect((await signal.look(followOf('alice')))[0]?.id).toBe('twitch-1');
    expect(twitch!.requests.filter((request) => request.path === '/helix/streams')).toHaveLength(2);

    // a follow brought forward (an EventSub stream.online, decision 0138) is not answered from an answer asked before
    twitch!.live.delete('alice');
    time.pass(8_000);
    expect(await signal.look(followOf('alice'))).toEqual([]);
    twitch!.live.set('alice', { streamId: '2', title: 'on again' });
    expect(await signal.look(followOf('alice'))).toEqual([]); // fresh: the answer of a moment ago
    signal.forget?.(followOf('alice'));
    time.pass(1);
    expect((await signal.look(followOf('alice')))[0]?.id).toBe('twitch-2');
    expect(twitch!.requests.filter((request) => request.path === '/helix/streams')).toHaveLength(4);

    const without = createTwitchHelixSignal({ helix: null, withoutClient: 'set KURA_TWITCH_CLIENT_ID', followed: async () => [], freshMs: 1 });
    await expect(without.look(followOf('alice'))).rejects.toThrow('set KURA_TWITCH_CLIENT_ID');
  });
});

describe('Kura’s Helix client (Helix stand-in)', () => {
  it('renews its app token once nine tenths of its life have passed, before Twitch would refuse it', async () => {
    const time = clock();
    const helix = await helixFor({ tokenSeconds: 100, now: time.now });
    twitch!.live.set('alice', { streamId: '1', title: 'on' });
    twitch!.users.set('alice', 'Alice');
    await helix.liveStreams(['alice']);
    time.pass(89_000);
    await helix.liveStreams(['alice']);
    expect(twitch!.grants()).toBe(1);
    time.pass(2_000);
    expect(await helix.liveStreams(['alice'])).toHaveLength(1);
    expect(twitch!.grants()).toBe(2);
    expect(twitch!.requests.map((request) => request.status)).toEqual([200, 200, 200]);
  });

  it('takes a new token when Twitch answers 401 (a revoked token) and asks again', async () => {
    const helix = await helixFor();
    twitch!.users.set('alice', 'Alice');
    expect(await helix.user('ALICE')).toEqual({ id: expect.stringMatching(/^[0-9]+$/), login: 'alice', displayName: 'Alice' });
    twitch!.revokeTokens();
    expect(await helix.user('alice')).toMatchObject({ login: 'alice', displayName: 'Alice' });
    expect(twitch!.grants()).toBe(2);
    expect(twitch!.requests.map((request) => request.status)).toEqual([200, 401, 200]);
    expect(await helix.user('nobody')).toBeNull();
  });

  it('refuses wrong credentials naming the settings', async () => {
    twitch = await startHelixStandIn();
    const app = { clientId: twitch.clientId, clientSecret: 'wrong', apiUrl: twitch.apiUrl, authUrl: twitch.authUrl };
    const helix = createHelixClient(app, { outbound: createOutboundClient({ allowPrivate: true }) });
    await expect(helix.liveStreams(['alice'])).rejects.toThrow(
      "Twitch refused the application's credentials (KURA_TWITCH_CLIENT_ID, KURA_TWITCH_CLIENT_SECRET): invalid client secret (HTTP 403)",
    );
  });

  it('waits for the bucket’s reset when the rate-limit headers say it is spent, and waits out a 429 once', async () => {
    const time = clock();
    const waits: number[] = [];
    const helix = await helixFor({ bucket: { limit: 2, windowMs: 30_000 }, now: time.now }, waits, time.pass);
    await helix.liveStreams(['a']);
    await helix.liveStreams(['b']);
    expect(waits).toEqual([]);
    // Ratelimit-Remaining: 0 → the third waits for Ratelimit-Reset instead of being refused
    await helix.liveStreams(['c']);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(29_000);
    expect(twitch!.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    // another client of the same application spent the bucket: a 429, waited out, then the answer
    twitch!.spendBucket();
    await helix.liveStreams(['d']);
    expect(twitch!.requests.map((request) => request.status)).toEqual([200, 200, 200, 429, 200]);
    expect(waits).toHaveLength(2);
  });

  it('fails a request rather than wait past a minute for the budget', async () => {
    const waits: number[] = [];
    const helix = await helixFor({ bucket: { limit: 1, windowMs: 3_600_000 } }, waits);
    await helix.liveStreams(['a']);
    await expect(helix.liveStreams(['b'])).rejects.toThrow("Twitch's API budget for this application is spent until");
    expect(waits).toEqual([]);
  });
});
