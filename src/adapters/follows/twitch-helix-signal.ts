// Decisions: docs/decisions/0135-twitch-follows-through-helix.md
import type { StreamCandidate } from '../../core/follows/follow.js';
import { twitchChannelUrl, twitchLoginOf } from '../../core/follows/follow-target.js';
import type { FollowSignal } from '../../core/follows/ports.js';
import type { HelixClient, HelixStream } from '../twitch/helix-client.js';

export interface HelixSignalOptions {
  /** Null on an instance without Twitch credentials: every look fails, saying how to get them. */
  helix: HelixClient | null;
  /** Why there is no client (TWITCH_CREDENTIALS). */
  withoutClient: string;
  /** The URLs of every unpaused Twitch follow of the instance (FollowRepo.unpausedUrls). */
  followed: () => Promise<readonly string[]>;
  /** How old an answer of Helix may be and still answer a look: half the `helix` interval. */
  freshMs: number;
  now?: () => number;
}

interface Answer {
  at: number;
  logins: Set<string>;
  live: Map<string, HelixStream>;
}

/**
 * The `helix` signal of a Twitch channel follow (decision 0135): one round of `GET /streams` asks
 * about every followed Twitch channel, a hundred a request, and answers each follow's look while
 * it is fresh — so a worker asks Twitch about N / 100 times a `freshMs`, however many of the N
 * follows it holds and in whatever order it looks at them. A live channel is one candidate
 * (`twitch-{stream id}`, the id yt-dlp gives the same broadcast); an offline one, none. Not paced
 * by host: Helix's rate-limit headers pace it (HelixClient).
 */
export function createTwitchHelixSignal(options: HelixSignalOptions): FollowSignal {
  const now = options.now ?? Date.now;
  let answer: Answer | null = null;
  let asking: Promise<Answer> | null = null;
  /** When a login's follow was brought forward (an EventSub `stream.online`, decision 0138): an answer asked before does not serve it. */
  const broughtForward = new Map<string, number>();

  const ask = async (helix: HelixClient, login: string): Promise<Answer> => {
    const at = now();
    const logins = new Set([login, ...(await options.followed()).flatMap((url) => twitchLoginOf(url) ?? [])]);
    const live = await helix.liveStreams([...logins]);
    return { at, logins, live: new Map(live.filter((stream) => stream.type === 'live').map((stream) => [stream.login, stream])) };
  };
  const fresh = (found: Answer | null, login: string): found is Answer =>
    found !== null && found.logins.has(login) && now() - found.at <= options.freshMs && found.at >= (broughtForward.get(login) ?? 0);
  const answerFor = async (helix: HelixClient, login: string): Promise<Answer> => {
    if (fresh(answer, login)) return answer;
    // one round at a time: looks that come meanwhile take its answer, and ask again only if it did not cover them
    const pending = asking === null ? null : await asking.catch(() => null);
    if (fresh(pending, login)) return pending;
    asking ??= ask(helix, login).finally(() => (asking = null));
    answer = await asking;
    return answer;
  };

  return {
    name: 'helix',
    host: () => null,
    async look(follow) {
      if (options.helix === null) throw new Error(options.withoutClient);
      const login = twitchLoginOf(follow.url);
      if (login === null) throw new Error(`${follow.url} is not a Twitch channel's page`);
      const stream = (await answerFor(options.helix, login)).live.get(login);
      return stream === undefined ? [] : [candidateOf(stream)];
    },
    forget(follow) {
      const login = twitchLoginOf(follow.url);
      if (login !== null) broughtForward.set(login, now());
    },
  };
}

function candidateOf(stream: HelixStream): StreamCandidate {
  return {
    url: twitchChannelUrl(stream.login),
    id: `twitch-${stream.id}`,
    title: stream.title,
    scheduledStart: null,
    liveStatus: 'live',
    membersOnly: null,
    channelId: `twitch:${stream.login}`,
    channelName: stream.displayName,
  };
}
