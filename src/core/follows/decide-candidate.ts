// Decisions: docs/decisions/0054-follows-claims-and-sightings.md, docs/decisions/0095-title-rules-compiled-once-and-bounded.md
import { AppError } from '../errors.js';
import { queueStream } from '../record-actions/queue-stream.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';
import type { Livestream } from '../records/livestream.js';
import { defaultTitle, utcMinute } from '../records/record-names.js';
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
  // a YouTube watch URL's host is YOUTUBE_HOST; a Twitch stream's, the site's
  await deps.pacer.wait(new URL(candidate.url).hostname);
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

/**
 * The sighting a follow keeps of its HLS endpoint's playlist, for itself (the follow's page does
 * not list it): where the playlist was when last seen live (its title: the candidate's position).
 * Each broadcast has a sighting of its own, under its record's id.
 */
export const PLAYLIST_SIGHTING = 'playlist';

/** The sequence of a position (`segment {sequence}: {URL}`); NaN when there is none. */
const sequenceAt = (position: string | null | undefined) => Number(/^segment (\d+):/.exec(position ?? '')?.[1] ?? Number.NaN);

/**
 * The sighting of an HLS broadcast the follow's title rules skipped (it has no record, so no id of
 * its own): one per follow, the last such broadcast, shown on the follow's page.
 */
export const SKIPPED_BROADCAST_SIGHTING = 'skipped-broadcast';

/**
 * An HLS endpoint live now: a new record for this broadcast, unless one of its source is being
 * recorded already, or its playlist has not moved since it was last seen (an endpoint that leaves
 * the ended broadcast's playlist in place, whose record ended idle), or it is the broadcast whose
 * capture an admin stopped, going on (its sequence did not go back: a stop sticks until the next
 * broadcast), or the follow's title rules skip the title its record would have (the rules are
 * the admin's words for which streams to keep, and that title is the one the admin then sees).
 * Returns whether it queued one.
 */
export async function decideBroadcast(
  deps: DecideDeps & { follows: Pick<FollowRepo, 'sightings' | 'recordSightings'> },
  follow: Follow,
  candidate: StreamCandidate,
  titles: TitleRefusal,
  now: Date,
): Promise<boolean> {
  const sightings = (...more: Sighting[]) =>
    deps.follows.recordSightings([
      ...(candidate.position === undefined
        ? []
        : [
            {
              followId: follow.id,
              streamId: PLAYLIST_SIGHTING,
              title: candidate.position,
              verdict: 'known' as const,
              reason: 'where the playlist was',
              seenAt: now,
              recheckAt: null,
            },
          ]),
      ...more,
    ]);
  const broadcast = (record: Livestream, verdict: SightingVerdict, reason: string): Sighting => ({
    followId: follow.id,
    streamId: record.id,
    title: record.title,
    verdict,
    reason,
    seenAt: now,
    recheckAt: null,
  });
  if ((await deps.livestreams.findActiveBySource(candidate.url)) !== null) {
    await sightings();
    return false;
  }
  const [earlier] = await deps.follows.sightings(follow.id, [PLAYLIST_SIGHTING]);
  if (candidate.position !== undefined && earlier?.title === candidate.position) return false;
  const stopped = await stoppedGoingOn(deps, candidate, earlier?.title);
  if (stopped !== null) {
    await sightings(broadcast(stopped.record, 'known', `stopped by ${stopped.by}: not queued again while this broadcast goes on`));
    return false;
  }
  const title = defaultTitle(follow.title ?? follow.channelName, now);
  const refusal = titles(title);
  if (refusal !== null) {
    const skipped = {
      followId: follow.id,
      streamId: SKIPPED_BROADCAST_SIGHTING,
      title,
      verdict: 'skipped' as const,
      reason: refusal,
      seenAt: now,
      recheckAt: null,
    };
    await sightings(skipped);
    return false;
  }
  const queued = await queueStream(deps, {
    url: candidate.url,
    submitter: followSubmitter(follow.id),
    title,
    channelName: follow.channelName,
    ...(follow.channelId === null ? {} : { channelId: follow.channelId }),
    now,
    ...quality(follow),
  });
  await sightings(broadcast(queued, 'queued', 'a new broadcast, queued'));
  return true;
}

/** The last record of the candidate's source when an admin stopped its capture and the playlist goes on from where it was (`earlier`), with who stopped it; else null. */
async function stoppedGoingOn(
  deps: DecideDeps,
  candidate: StreamCandidate,
  earlier: string | null | undefined,
): Promise<{ record: Livestream; by: string } | null> {
  const [before, now] = [sequenceAt(earlier), sequenceAt(candidate.position)];
  if (!(now >= before)) return null; // a new broadcast (its sequence went back), or nothing to compare
  const record = await deps.livestreams.findLatestBySource(candidate.url);
  const stop = record === null ? null : ((await deps.captures.get(record.id))?.stopRequested ?? null);
  return record === null || stop === null ? null : { record, by: stop };
}
