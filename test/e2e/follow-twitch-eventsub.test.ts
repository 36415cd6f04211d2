import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { YTDLP_STAND_IN } from '../support/app.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startHelixStandIn, type HelixStandIn } from '../support/helix-stand-in.js';
import { startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { ALICE_STREAM, aliceOnTwitch, sitesSay } from '../support/live-site-state.js';
import { waitForRecord } from '../support/records.js';
import { e2eEnv } from '../support/serve-env.js';

// A followed Twitch channel's stream.online (issue 56, decision 0138), with the real `kura serve`:
// Twitch is the STAND-IN Helix with its EventSub (test/support/helix-stand-in.ts,
// eventsub-stand-in.ts), which takes Kura's http://127.0.0.1 callback (Twitch takes https on 443
// alone: KURA_TWITCH_EVENTSUB=on subscribes whatever the public URL); yt-dlp the STAND-IN answering
// as its Twitch extractor. Helix is looked at once an hour here: only the notification can queue
// the stream while the test runs.
const RECORD_ID = `twitch-${ALICE_STREAM}`;
let db: TestDatabase;
let cwd: string;
let twitch: HelixStandIn;
let fixture: HlsFixture | null = null;
let kura: KuraProcess | null = null;

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-twitch-eventsub-'));
  await chmod(cwd, 0o755);
  twitch = await startHelixStandIn({ requireHttpsCallback: false });
  twitch.users.set('alice', 'Alice');
});
afterEach(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  kura = null;
  await fixture?.close();
  fixture = null;
  await twitch.close();
  await db.drop();
  await rm(cwd, { recursive: true, force: true });
});

/** A port free now, so the public URL (the callback Twitch is given) is known before Kura listens on it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const stateFile = () => path.join(cwd, 'yt-dlp-state.json');
const sites = (state: object) => sitesSay(stateFile(), path.join(cwd, 'yt-dlp-calls.log'), state);

describe('a followed Twitch channel with EventSub (Helix, EventSub and yt-dlp stand-ins)', () => {
  it('is subscribed to stream.online, and its notification has the stream queued at once, Helix polled only hourly', async () => {
    const port = await freePort();
    const env = e2eEnv(db.url, path.join(cwd, 'data'), {
      PORT: String(port),
      HOST: '127.0.0.1',
      KURA_PUBLIC_URL: `http://127.0.0.1:${port}`,
      YTDLP_PATH: YTDLP_STAND_IN,
      YTDLP_STAND_IN_STATE: stateFile(),
      KURA_TWITCH_CLIENT_ID: twitch.clientId,
      KURA_TWITCH_CLIENT_SECRET: twitch.clientSecret,
      KURA_TWITCH_API_URL: twitch.apiUrl,
      KURA_TWITCH_AUTH_URL: twitch.authUrl,
      KURA_TWITCH_EVENTSUB: 'on',
      KURA_FOLLOW_POLL_SECONDS: '3600',
    });
    fixture = await startHlsFixture({ seconds: 20 });
    await sites(aliceOnTwitch(fixture.url, false));
    const added = await runKura(['follow', 'add', 'https://www.twitch.tv/alice'], env, cwd);
    expect(added.code, added.stderr).toBe(0);
    kura = spawnKura(['serve'], env, cwd);
    // the follow's first look (offline), and the subscription, verified at Kura's callback
    await twitch.asked('/helix/streams', 1);
    const subscription = await twitch.eventSub.subscribed('alice');
    expect(subscription.body.transport.callback).toBe(`http://127.0.0.1:${port}/api/twitch/eventsub`);
    expect(twitch.eventSub.verifications).toEqual([{ login: 'alice', ok: true }]);

    // Alice goes live; the next look is an hour away, but Twitch says so at once
    fixture.start().catch(() => undefined);
    await fixture.onAir();
    await sites(aliceOnTwitch(fixture.url));
    twitch.live.set('alice', { streamId: ALICE_STREAM, title: '朝の雑談 ☀' });
    const forged = await twitch.eventSub.sendOnline('alice', ALICE_STREAM, { secret: 'someone-else' });
    expect(forged.status).toBe(403);
    const sent = Date.now();
    expect(await twitch.eventSub.sendOnline('alice', ALICE_STREAM)).toEqual({ status: 204, text: '' });
    const record = await waitForRecord(db.url, RECORD_ID, () => true, 60_000);
    expect(Date.now() - sent).toBeLessThan(30_000);
    expect((record as unknown as { title: string }).title).toBe('朝の雑談 ☀');
    // one look at start, one at the notification (not answered from the first): no poll between
    expect(twitch.requests.filter((r) => r.path === '/helix/streams').map((r) => r.logins.join())).toEqual(['alice', 'alice']);
  });
});
