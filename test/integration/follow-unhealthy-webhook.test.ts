import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFollowRepo } from '../../src/adapters/db/follow-repo.js';
import { createWebhookRepo } from '../../src/adapters/db/webhook-repo.js';
import { createHostPacer } from '../../src/adapters/follows/host-pacer.js';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import type { CheckDeps, CheckPolicy } from '../../src/core/follows/check-follow.js';
import { checkAsHeld } from '../support/follow-holder.js';
import type { Follow } from '../../src/core/follows/follow.js';
import type { FollowRepo, FollowSignal } from '../../src/core/follows/ports.js';
import { addWebhook } from '../../src/core/notifications/add-webhook.js';
import { presentFollow } from '../../src/http/follows/follow.presenter.js';
import { YTDLP_STAND_IN, YTDLP_STAND_IN_PROGRAM } from '../support/app.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startReceiver, startWorker } from '../support/webhooks.js';

const T0 = new Date('2026-03-01T12:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
const policy: CheckPolicy = { intervals: { feed: 60, tabs: 60, holodex: 60, playlist: 60, helix: 60 }, horizonSeconds: 48 * 3600, random: () => 0.5 };

let db: TestDatabase;
let follows: FollowRepo;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let worker: Awaited<ReturnType<typeof startWorker>>;
/** The HLS endpoint's one signal, as an IN-TEST port: it fails with `failure` while that is set (the real signals: hls-endpoint-signal.test.ts). */
const playlist = { failure: null as string | null };
const playlistPort: FollowSignal = {
  name: 'playlist',
  host: () => 'live.example',
  async look() {
    if (playlist.failure !== null) throw new Error(playlist.failure);
    return [];
  },
};

beforeEach(async () => {
  db = await createTestDatabase();
  follows = createFollowRepo(db.pool);
  receiver = await startReceiver();
  worker = await startWorker(db);
  playlist.failure = null;
});
afterEach(async () => {
  await worker.stop();
  await receiver.close();
  await db.drop();
});

function deps(): CheckDeps {
  return {
    follows,
    livestreams: db.livestreams,
    captures: createCaptureRepo(db.pool),
    scheduler: worker.jobs,
    source: createYouTubeSource(createYtDlp(YTDLP_STAND_IN_PROGRAM)),
    pacer: createHostPacer({ requestsPerMinute: 600_000 }),
    signals: { feed: playlistPort, tabs: playlistPort, holodex: playlistPort, playlist: playlistPort, helix: playlistPort },
  };
}

async function addEndpoint(id: string, channelId: string): Promise<Follow> {
  return follows.add({
    id,
    kind: 'hls_endpoint',
    url: `https://live.example/${id}/index.m3u8`,
    channelId,
    channelName: `Channel ${channelId}`,
    title: null,
    rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null },
    createdBy: 'local/root',
    createdAt: T0,
    signals: [{ signal: 'playlist', lastCheckedAt: null, lastOkAt: null, lastError: null, lastErrorAt: null, nextCheckAt: T0 }],
  });
}

const check = async (id: string, at: Date) => checkAsHeld(deps(), id, policy, at);
/** The follow.unhealthy events of `flaky` in the outbox (which has a webhook that wants them, so none is pruned). */
const unhealthyEvents = async () =>
  Number((await db.pool.query(`select count(*) from events where type = 'follow.unhealthy' and follow_id = 'flaky'`)).rows[0].count);

describe('follow.unhealthy', () => {
  it('reaches a webhook once per unhealthy spell, signed, with data the follow as /api/follows shows it; only for its channel', async () => {
    const { secret } = await addWebhook(
      { webhooks: createWebhookRepo(db.pool), refuseUrl: () => null, checkAddresses: async () => null },
      { url: receiver.url, events: ['follow.unhealthy'], channelId: 'wanted', createdBy: 'local/root' },
    );
    receiver.useSecret(secret);
    await addEndpoint('other', 'other');
    await addEndpoint('flaky', 'wanted');
    playlist.failure = 'the playlist answered 503';

    for (const at of [0, 30, 59]) await check('flaky', minutes(at));
    expect(await unhealthyEvents()).toBe(0);
    // the other channel's follow goes unhealthy too: not for this webhook
    await check('other', minutes(0));
    expect((await check('other', minutes(61))).becameUnhealthy).toBe(true);
    const outcome = await check('flaky', minutes(61));
    expect(outcome.becameUnhealthy).toBe(true);
    await receiver.waitFor(1);
    expect(receiver.refusedSignatures).toEqual([]);
    expect(receiver.received[0]?.type).toBe('follow.unhealthy');
    const stored = (await follows.find('flaky'))!;
    expect(receiver.received[0]?.data).toEqual(JSON.parse(JSON.stringify(presentFollow(stored, minutes(61), 'admin'))));
    expect(receiver.received[0]?.data).toMatchObject({ id: 'flaky', channelId: 'wanted', health: 'unhealthy', failingSince: T0.toISOString() });

    // still failing: the same spell, no second event
    await check('flaky', minutes(62));
    await check('flaky', minutes(120));
    expect(await unhealthyEvents()).toBe(1);

    // it recovers, then fails for an hour again: a second spell, a second event
    playlist.failure = null;
    await check('flaky', minutes(121));
    playlist.failure = 'the playlist answered 404 forever';
    await check('flaky', minutes(122));
    await check('flaky', minutes(150));
    expect(await unhealthyEvents()).toBe(1);
    await check('flaky', minutes(183));
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => [r.type, r.data.id, r.data.failingSince])).toEqual([
      ['follow.unhealthy', 'flaky', T0.toISOString()],
      ['follow.unhealthy', 'flaky', minutes(122).toISOString()],
    ]);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(2);
    await worker.drain(); // nothing else is due for it
    expect(receiver.received).toHaveLength(2);
    expect(await unhealthyEvents()).toBe(2);
  });

  it('reaches a webhook once when the cookies no longer open the members-only streams a follow includes, with the reason', async () => {
    const { secret } = await addWebhook(
      { webhooks: createWebhookRepo(db.pool), refuseUrl: () => null, checkAddresses: async () => null },
      { url: receiver.url, events: ['follow.unhealthy'], createdBy: 'local/root' },
    );
    receiver.useSecret(secret);
    // YouTube (the yt-dlp STAND-IN): a live members-only stream, opened only by the member's cookie
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-members-'));
    const member = '.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tmember-session';
    const cookies = path.join(dir, 'cookies.txt');
    await writeFile(cookies, '# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tlogged-out\n');
    process.env.YTDLP_STAND_IN_STATE = path.join(dir, 'state.json');
    await writeFile(
      process.env.YTDLP_STAND_IN_STATE,
      JSON.stringify({
        videos: { memberlive1: { liveStatus: 'is_live', title: 'Members karaoke', membersOnly: true, hlsUrl: 'http://127.0.0.1:1/x.m3u8' } },
        memberCookie: member,
      }),
    );
    try {
      const source = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: cookies })));
      const feed: FollowSignal = {
        name: 'feed',
        host: () => 'feed.example',
        look: async () => [
          {
            url: 'https://www.youtube.com/watch?v=memberlive1',
            id: 'memberlive1',
            title: 'Members karaoke',
            scheduledStart: null,
            liveStatus: 'live',
            membersOnly: null,
          },
        ],
      };
      const checkDeps = { ...deps(), source, signals: { feed, tabs: feed, holodex: feed, playlist: feed, helix: feed } };
      await follows.add({
        id: 'members',
        kind: 'youtube_channel',
        url: 'https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv',
        channelId: 'UCabcdefghijklmnopqrstuv',
        channelName: 'Karaoke Channel',
        title: null,
        rules: { titleInclude: null, titleExclude: null, membersOnly: 'include', quality: null },
        createdBy: 'local/root',
        createdAt: T0,
        signals: [{ signal: 'feed', lastCheckedAt: null, lastOkAt: null, lastError: null, lastErrorAt: null, nextCheckAt: T0 }],
      });
      const checkMembers = async (at: Date) => checkAsHeld(checkDeps, 'members', policy, at);
      for (const at of [0, 2, 30, 61, 62, 120]) await checkMembers(minutes(at));
      await receiver.waitFor(1);
      await worker.drain();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]?.data).toMatchObject({
        id: 'members',
        health: 'unhealthy',
        failingSince: T0.toISOString(),
        accessError: expect.stringMatching(/^the cookies no longer give access to members-only streams \(KURA_YTDLP_COOKIES\): YouTube refused memberlive1: /),
        // every signal answered: the cookies alone made it unhealthy
        signals: [expect.objectContaining({ signal: 'feed', lastError: null }), expect.objectContaining({ signal: 'tabs', lastError: null })],
      });
      // a member's cookies in the file: healthy again, and no event for that
      await writeFile(cookies, `# Netscape HTTP Cookie File\n${member}\n`);
      expect(await checkMembers(minutes(121))).toMatchObject({ failingSince: null, accessRefused: null });
      await worker.drain();
      expect(receiver.received).toHaveLength(1);
    } finally {
      delete process.env.YTDLP_STAND_IN_STATE;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
