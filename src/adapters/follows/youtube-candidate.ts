import type { StreamCandidate } from '../../core/follows/follow.js';

/** A YouTube video id: 11 characters of A–Z, a–z, 0–9, - and _. */
export const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

/** A YouTube video a signal saw, under its id and the watch URL records are kept under. */
export function youTubeCandidate(id: string, seen: Omit<StreamCandidate, 'id' | 'url'>): StreamCandidate {
  return { id, url: `https://www.youtube.com/watch?v=${id}`, ...seen };
}

/** The follow's YouTube channel id, or an Error saying it has none (a follow of another kind). */
export function channelIdOf(follow: { channelId: string | null; url: string }): string {
  if (follow.channelId === null || !/^UC[A-Za-z0-9_-]{22}$/.test(follow.channelId)) throw new Error(`${follow.url} names no YouTube channel id`);
  return follow.channelId;
}
