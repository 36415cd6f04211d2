// Decisions: docs/decisions/0054-follows-claims-and-sightings.md
import { AppError } from '../errors.js';
import { queueStream } from '../workflow/queue-stream.js';
import type { LivestreamRepo, Scheduler } from '../livestream/ports.js';
import type { CaptureStates, EncoderLog, PartLog } from '../capture/ports.js';
import type { Inspection, StreamSource } from '../sources/ports.js';
import { followSubmitter, type AccessRefusal, type Follow, type Sighting, type SightingVerdict, type StreamCandidate } from './follow.js';
import type { TitleRefusal } from './follow-rules.js';
import type { FollowRepo, HostPacer } from './ports.js';

/** The host every yt-dlp inspection of a YouTube video counts against. */
export const YOUTUBE_HOST = 'www.youtube.com';

export interface DecideDeps {
  livestreams: LivestreamRepo;
  captures: CaptureStates & PartLog & EncoderLog;
  scheduler: Scheduler;
  source: StreamSource;
  pacer: HostPacer;
}

/** What a check needs to know to decide. */
export interface DecidePolicy {
  /** Streams scheduled further ahead than this are decided again when they come into it. */
  horizonSeconds: number;
}

/**
 * What was decided; `accessRefused`: YouTube refused a members-only (or sign-in) stream the follow
 * includes, in the follow's words (it turns the follow failing, see check-follow.ts).
 */
export type Decision = Pick<Sighting, 'verdict' | 'reason' | 'recheckAt'> & { accessRefused?: string };

const final = (verdict: SightingVerdict, reason: string): Decision => ({ verdict, reason, recheckAt: null });
/** A rejection that holds for good (as opposed to yt-dlp failing, which is tried again). */
const FOR_GOOD = /not a livestream|already ended|not a youtube/i;

/**
 * Decides one YouTube stream a follow saw, which no earlier sighting settled and no record holds:
 * the rules on what the signal said, then (paced) the source's look and the rules on what it said,
 * then queues it as if submitted by `follow/{id}`.
 */
export async function decideVideo(
  deps: DecideDeps,
  follow: Follow,
  candidate: StreamCandidate,
  policy: DecidePolicy & { titles: TitleRefusal },
  now: Date,
): Promise<Decision> {
  const early = ruleDecision(follow, policy, now, candidate);
  if (early !== null) return early;
  await deps.pacer.wait(YOUTUBE_HOST);
  const inspection = await deps.source.inspect(candidate.url);
  if (inspection.kind === 'rejected') return rejected(deps, follow, candidate, inspection, now);
  const details = inspection.details;
  const fresh = ruleDecision(follow, policy, now, {
    title: details?.title ?? candidate.title,
    membersOnly: details?.membersOnly ?? candidate.membersOnly,
    scheduledStart: details?.scheduledStart ?? candidate.scheduledStart,
  });
  if (fresh !== null) return fresh;
  try {
    await queueStream(deps, { url: candidate.url, submitter: followSubmitter(follow.id), now, inspection, ...quality(follow) });
    return final('queued', 'queued as if submitted');
  } catch (error) {
    if (error instanceof AppError && error.code === 'already_archived') return final('known', 'archived already');
    return { verdict: 'later', reason: `queuing failed: ${(error as Error).message}; tried again at the next check`, recheckAt: now };
  }
}

/**
 * The members-only refusal the follow stands under before this check decides anything: none when
 * it does not include members-only streams (any more); else its refused stream is looked at again
 * (paced). Opened (accepted, or judged an ended stream or no livestream, which takes its formats)
 * → access works again; refused again → it stands; yt-dlp failing says nothing, so it stands.
 */
export async function probeAccess(deps: Pick<DecideDeps, 'source' | 'pacer'>, follow: Follow): Promise<AccessRefusal | null> {
  const refusal = follow.accessRefused;
  if (refusal === null || follow.rules.membersOnly !== 'include') return null;
  await deps.pacer.wait(YOUTUBE_HOST);
  const inspection = await deps.source.inspect(refusal.probeUrl).catch(() => null);
  if (inspection === null) return refusal;
  if (inspection.kind === 'accepted') return null;
  if (inspection.membersOnly === true || inspection.signIn === true) return refusal;
  return FOR_GOOD.test(inspection.reason) ? null : refusal;
}

const quality = (follow: Follow) => (follow.rules.quality === null ? {} : { quality: follow.rules.quality });

/** The rules on what is known of a stream: its title, whether it is members-only, when it starts. Null: no rule stops it. */
function ruleDecision(
  follow: Follow,
  policy: DecidePolicy & { titles: TitleRefusal },
  now: Date,
  known: Pick<StreamCandidate, 'title' | 'membersOnly' | 'scheduledStart'>,
): Decision | null {
  const refusal = known.title === null ? null : policy.titles(known.title);
  if (refusal !== null) return final('skipped', refusal);
  if (known.membersOnly === true && follow.rules.membersOnly === 'skip') return final('skipped', 'members-only (the follow skips them)');
  const start = known.scheduledStart;
  if (start !== null && start.getTime() - now.getTime() > policy.horizonSeconds * 1000) {
    const hours = Math.round(policy.horizonSeconds / 3600);
    return {
      verdict: 'later',
      reason: `scheduled ${utcMinute(start)} UTC, beyond the ${hours} h horizon`,
      recheckAt: new Date(start.getTime() - policy.horizonSeconds * 1000),
    };
  }
  return null;
}

async function rejected(
  deps: DecideDeps,
  follow: Follow,
  candidate: StreamCandidate,
  inspection: Extract<Inspection, { kind: 'rejected' }>,
  now: Date,
): Promise<Decision> {
  if (inspection.membersOnly === true || inspection.signIn === true) {
    if (inspection.membersOnly === true && follow.rules.membersOnly === 'skip') return final('skipped', 'members-only (the follow skips them)');
    // the source's reason names the setting (KURA_YTDLP_COOKIES); waiting will not open the stream
    await writeFailed(deps, follow, candidate, inspection.reason, now);
    const decision = final('failed', inspection.reason);
    // the cookies are expected to open what the follow includes: their failure is the follow's
    if (follow.rules.membersOnly !== 'include') return decision;
    return { ...decision, accessRefused: accessRefusedWords(candidate, inspection.reason) };
  }
  if (FOR_GOOD.test(inspection.reason)) return final('skipped', inspection.reason);
  return { verdict: 'later', reason: `${inspection.reason} (tried again at the next check)`, recheckAt: now };
}

/** Why a follow stands failing when YouTube refused one of its streams for want of access. */
export function accessRefusedWords(candidate: Pick<StreamCandidate, 'id' | 'url'>, reason: string): string {
  return `the cookies no longer give access to members-only streams (KURA_YTDLP_COOKIES): YouTube refused ${candidate.id ?? candidate.url}: ${reason}`;
}

/** A members-only (or sign-in) stream Kura cannot watch: a failed record that says why. */
async function writeFailed(deps: DecideDeps, follow: Follow, candidate: StreamCandidate, reason: string, now: Date): Promise<void> {
  await deps.livestreams.upsertMany([
    {
      id: candidate.id as string,
      platform: 'youtube',
      sourceUrl: candidate.url,
      status: 'failed',
      failureReason: reason,
      title: candidate.title ?? (candidate.id as string),
      channelName: candidate.channelName ?? follow.channelName,
      channelId: candidate.channelId ?? follow.channelId ?? follow.channelName,
      thumbnailUrl: null,
      scheduledStart: candidate.scheduledStart ?? now,
      startedAt: null,
      endedAt: null,
      archive: null,
      submitters: [followSubmitter(follow.id)],
      requestedQuality: follow.rules.quality,
    },
  ]);
}

/** `2026-11-30 18:00` (UTC). */
export function utcMinute(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ');
}

/** The sighting a follow keeps of its HLS endpoint: where the playlist was when last seen live (title). */
export const PLAYLIST_SIGHTING = 'playlist';

/**
 * An HLS endpoint live now: a new record for this broadcast, unless one of its source is being
 * recorded already, or its playlist has not moved since it was last seen (an endpoint that leaves
 * the ended broadcast's playlist in place, whose record ended idle). Returns whether it queued one.
 */
export async function decideBroadcast(
  deps: DecideDeps & { follows: Pick<FollowRepo, 'sightings' | 'recordSightings'> },
  follow: Follow,
  candidate: StreamCandidate,
  now: Date,
): Promise<boolean> {
  const seen = (verdict: SightingVerdict, reason: string) =>
    candidate.position === undefined
      ? Promise.resolve()
      : deps.follows.recordSightings([
          { followId: follow.id, streamId: PLAYLIST_SIGHTING, title: candidate.position, verdict, reason, seenAt: now, recheckAt: null },
        ]);
  if ((await deps.livestreams.findActiveBySource(candidate.url)) !== null) {
    await seen('known', 'a broadcast being recorded');
    return false;
  }
  const [earlier] = await deps.follows.sightings(follow.id, [PLAYLIST_SIGHTING]);
  if (candidate.position !== undefined && earlier?.title === candidate.position) return false;
  await queueStream(deps, {
    url: candidate.url,
    submitter: followSubmitter(follow.id),
    title: `${follow.title ?? follow.channelName} ${utcMinute(now)} UTC`,
    channelName: follow.channelName,
    ...(follow.channelId === null ? {} : { channelId: follow.channelId }),
    now,
    ...quality(follow),
  });
  await seen('queued', 'a new broadcast, queued');
  return true;
}
