import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/browser.js';
import { runKura } from '../support/cli.js';
import { startHelixStandIn, type HelixStandIn } from '../support/helix-stand-in.js';
import { ALICE_STREAM, aliceOnTwitch } from '../support/live-site-state.js';
import { waitForRecord } from '../support/records.js';
import { useSiteHarness } from '../support/site-harness.js';

// A followed Twitch channel's stream.online (issue 56, decision 0138), with the real `kura serve`:
// Twitch is the STAND-IN Helix with its EventSub (test/support/helix-stand-in.ts,
// eventsub-stand-in.ts), which takes Kura's http://127.0.0.1 callback (Twitch takes https on 443
// alone: KURA_TWITCH_EVENTSUB=on subscribes whatever the public URL); yt-dlp the STAND-IN answering
// as its Twitch extractor. Helix is looked at once an hour here: only the notification can queue
// the stream while the test runs.
const RECORD_ID = `twitch-${ALICE_STREAM}`;
const h = useSiteHarness();
let twitch: HelixStandIn;
beforeEach(async () => {
  twitch = await startHelixStandIn({ requireHttpsCallback: false });
  twitch.users.set('alice', 'Alice');
});
afterEach(async () => {
  await twitch.close();
});

describe('a followed Twitch channel with EventSub (Helix, EventSub and yt-dlp stand-ins)', () => {
  it('is subscribed to stream.online, and its notification has the stream queued at once, Helix polled only hourly', async () => {
    const port = await freePort();
    const env = h.env({
      PORT: String(port),
      HOST: '127.0.0.1',
      KURA_PUBLIC_URL: `http://127.0.0.1:${port}`,
      KURA_TWITCH_CLIENT_ID: twitch.clientId,
      KURA_TWITCH_CLIENT_SECRET: twitch.clientSecret,
      KURA_TWITCH_API_URL: twitch.apiUrl,
      KURA_TWITCH_AUTH_URL: twitch.authUrl,
      KURA_TWITCH_EVENTSUB: 'on',
      KURA_FOLLOW_POLL_SECONDS: '3600',
    });
    const fixture = await h.startFixture({ seconds: 20 });
    await h.sitesSay(aliceOnTwitch(fixture.url, false));
    const added = await runKura(['follow', 'add', 'https://www.twitch.tv/alice'], env, h.cwd);
    expect(added.code, added.stderr).toBe(0);
    await h.serve(env);
    // the follow's first look (offline), and the subscription, verified at Kura's callback
    await twitch.asked('/helix/streams', 1);
    const subscription = await twitch.eventSub.subscribed('alice');
    expect(subscription.body.transport.callback).toBe(`http://127.0.0.1:${port}/api/twitch/eventsub`);
    expect(twitch.eventSub.verifications).toEqual([{ login: 'alice', ok: true }]);

    // Alice goes live; the next look is an hour away, but Twitch says so at once
    fixture.start().catch(() => undefined);
    await fixture.onAir();
    await h.sitesSay(aliceOnTwitch(fixture.url));
    twitch.live.set('alice', { streamId: ALICE_STREAM, title: '朝の雑談 ☀' });
    const forged = await twitch.eventSub.sendOnline('alice', ALICE_STREAM, { secret: 'someone-else' });
    expect(forged.status).toBe(403);
    const sent = Date.now();
    expect(await twitch.eventSub.sendOnline('alice', ALICE_STREAM)).toEqual({ status: 204, text: '' });
    const record = await waitForRecord(h.db.url, RECORD_ID, () => true, 60_000);
    expect(Date.now() - sent).toBeLessThan(30_000);
    expect((record as unknown as { title: string }).title).toBe('朝の雑談 ☀');
    // one look at start, one at the notification (not answered from the first): no poll between
    expect(twitch.requests.filter((r) => r.path === '/helix/streams').map((r) => r.logins.join())).toEqual(['alice', 'alice']);
  });
});
