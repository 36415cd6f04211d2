// What bench/follows.ts runs a worker against: a YouTube feed server and the yt-dlp stand-in's
// state, for N channels with nothing new (steady state), and the follows inserted straight into
// the database (an API call per follow would run yt-dlp to resolve each channel).
import { once } from 'node:events';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { createFollowRepo } from '../src/adapters/db/follow-repo.js';
import type { SignalHealth, SignalName } from '../src/core/follows/follow.js';
import type { NewFollow } from '../src/core/follows/ports.js';

/** `UC` + 22 characters, as YouTube's channel ids are. */
export const channelIdOf = (index: number) => `UCkuraBench${String(index).padStart(13, '0')}`;

const DAY_MS = 86_400_000;
/** Feed entries this much older than the signal's 7-day window and more: no inspection is asked. */
const OLDEST_DAYS = 8;

/** A channel's feed in the real format (test/fixtures/youtube/feed.xml): 15 uploads, all 8 days old or more. */
export function feedXml(channelId: string, now: number): string {
  const entries = Array.from({ length: 15 }, (_, k) => {
    const videoId = `${channelId.slice(-8)}${String(k).padStart(3, '0')}`;
    const published = new Date(now - (OLDEST_DAYS + k) * DAY_MS).toISOString().replace('.000Z', '+00:00');
    return ` <entry>
  <id>yt:video:${videoId}</id>
  <yt:videoId>${videoId}</yt:videoId>
  <yt:channelId>${channelId}</yt:channelId>
  <title>Past stream #${k} &amp; friends 【歌枠】</title>
  <link rel="alternate" href="https://www.youtube.com/watch?v=${videoId}"/>
  <author>
   <name>Bench ${channelId}</name>
   <uri>https://www.youtube.com/channel/${channelId}</uri>
  </author>
  <published>${published}</published>
  <updated>${published}</updated>
  <media:group>
   <media:title>Past stream #${k} &amp; friends 【歌枠】</media:title>
   <media:content url="https://www.youtube.com/v/${videoId}?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
   <media:thumbnail url="https://i2.ytimg.com/vi/${videoId}/hqdefault.jpg" width="480" height="360"/>
   <media:description>An ordinary past upload, described at some length as channels do: links, schedule, thanks to members and the usual hashtags.</media:description>
   <media:community>
    <media:starRating count="12" average="5.00" min="1" max="5"/>
    <media:statistics views="3456"/>
   </media:community>
  </media:group>
 </entry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="http://www.youtube.com/feeds/videos.xml?channel_id=${channelId}"/>
 <id>yt:channel:${channelId.slice(2)}</id>
 <yt:channelId>${channelId.slice(2)}</yt:channelId>
 <title>Bench ${channelId}</title>
 <link rel="alternate" href="https://www.youtube.com/channel/${channelId}"/>
 <author>
  <name>Bench ${channelId}</name>
  <uri>https://www.youtube.com/channel/${channelId}</uri>
 </author>
 <published>2019-04-01T10:12:44+00:00</published>
${entries.join('\n')}
</feed>
`;
}

export interface FeedServer {
  url: string;
  /** When each request came (ms since the epoch). */
  requests: number[];
  close(): Promise<void>;
}

/** Answers any `?channel_id=` with that channel's feed and keeps the time of every request. */
export async function startFeedServer(): Promise<FeedServer> {
  const requests: number[] = [];
  const server = http.createServer((request, response) => {
    requests.push(Date.now());
    const channelId = new URL(request.url ?? '/', 'http://x').searchParams.get('channel_id');
    if (channelId === null) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' }).end(feedXml(channelId, Date.now()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/feeds/videos.xml`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The stand-in's state: every channel exists, with no stream on its tab; each run is logged to `calls`. */
export async function writeStandInState(file: string, channels: number, calls: string): Promise<void> {
  const entries = Array.from({ length: channels }, (_, i) => [channelIdOf(i), { handle: `@bench${i}`, name: `Bench ${i}`, streams: [] }]);
  await writeFile(file, JSON.stringify({ channels: Object.fromEntries(entries), calls }));
  await appendFile(calls, '');
}

/** The yt-dlp runs logged so far (one line each). */
export async function ytdlpRuns(calls: string): Promise<number> {
  if ((await stat(calls)).size === 0) return 0;
  return (await readFile(calls, 'utf8')).split('\n').length - 1;
}

/**
 * Replaces every follow with `channels` YouTube channel follows; `due(index, signal)` is when
 * that follow's signal is next due.
 */
export async function insertFollows(pool: pg.Pool, channels: number, due: (index: number, signal: 'feed' | 'tabs') => Date): Promise<void> {
  await pool.query('delete from follows');
  const createdAt = new Date();
  const health = (signal: SignalName, nextCheckAt: Date): SignalHealth => ({
    signal,
    lastCheckedAt: null,
    lastOkAt: null,
    lastError: null,
    lastErrorAt: null,
    nextCheckAt,
  });
  await addFollows(pool, channels, (i) => ({
    id: `bench${String(i).padStart(7, '0')}`,
    kind: 'youtube_channel',
    url: `https://www.youtube.com/channel/${channelIdOf(i)}`,
    channelId: channelIdOf(i),
    channelName: `Bench ${i}`,
    title: null,
    rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null },
    createdBy: 'local/bench',
    createdAt,
    signals: [health('feed', due(i, 'feed')), health('tabs', due(i, 'tabs'))],
  }));
}

/** Followed HLS endpoints `url(i)`, each looked at first at `due(i)`. */
export async function insertEndpointFollows(pool: pg.Pool, count: number, url: (index: number) => string, due: (index: number) => Date): Promise<void> {
  const createdAt = new Date();
  await addFollows(pool, count, (i) => ({
    id: `shared${String(i).padStart(6, '0')}`,
    kind: 'hls_endpoint',
    url: url(i),
    channelId: null,
    channelName: `Endpoint ${i}`,
    title: null,
    rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null },
    createdBy: 'local/bench',
    createdAt,
    signals: [{ signal: 'playlist', lastCheckedAt: null, lastOkAt: null, lastError: null, lastErrorAt: null, nextCheckAt: due(i) }],
  }));
}

/** Adds `count` follows as the repository adds one, fifty at a time. */
async function addFollows(pool: pg.Pool, count: number, follow: (index: number) => NewFollow): Promise<void> {
  const repo = createFollowRepo(pool);
  for (let start = 0; start < count; start += 50) {
    const batch = Array.from({ length: Math.min(50, count - start) }, (_, k) => start + k);
    await Promise.all(batch.map((i) => repo.add(follow(i))));
  }
}

/** The most of `times` (sorted) that fall in any span of `size` ms. */
export function slidingMax(times: readonly number[], size: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while ((times[last] as number) - (times[first] as number) >= size) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
