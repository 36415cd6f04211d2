// Decisions: docs/decisions/0054-follows-claims-and-sightings.md, docs/decisions/0057-webhook-events-with-the-change.md
import { healthOf, SIGNALS_OF, type AccessRefusal, type Follow, type Sighting, type SignalHealth, type SignalName, type StreamCandidate } from './follow.js';
import { decideBroadcast, decideVideo, probeAccess, type Decision, type DecideDeps, type DecidePolicy } from './decide-candidate.js';
import type { CheckOutcome, FollowRepo, FollowSignal, HeldLook } from './ports.js';
import { afterCheck, checkChanged } from './check-changes.js';
import { publicErrorWords } from '../sources/public-url.js';
import { titleRules, type TitleRefusal } from './follow-rules.js';

export interface CheckDeps extends DecideDeps {
  follows: FollowRepo;
  signals: Record<SignalName, FollowSignal>;
}

export interface CheckPolicy extends DecidePolicy {
  /** Seconds between two looks of each signal. */
  intervals: Record<SignalName, number>;
  /** A number in [0, 1) (Math.random): spreads the next looks over ±10 % of the interval. */
  random?: () => number;
}

/** How a holder of the follow checks it (decision 0082); the defaults are a lone check's. */
export interface Holding {
  /** The follow's title rules compiled (`titleRules`), kept by a holder until they change. */
  titles: TitleRefusal;
  /** The follow's next_check_at as the holder last wrote or read it: one brought before it meanwhile (a resume) is kept. */
  storedDue: Date;
}

/** What a check leaves behind. */
export interface CheckResult {
  outcome: CheckOutcome;
  /** The follow as it stands after the check (what the database has once every write is made). */
  after: Follow;
  /**
   * Null when the check was written at once (it changed what a user or another process sees); else
   * the check changed only times, and the holder writes it later with others (FollowRepo.recordLooks).
   */
  unwritten: HeldLook | null;
}

/**
 * Checks a follow once: looks at each of its signals that is due (paced per host; a failure is
 * kept in that signal's health, never thrown), looks again at the members-only stream YouTube
 * refused it (if any), decides every stream they list (see decide-candidate.ts) and keeps the
 * decisions as sightings as they are made. The outcome is written at once when it changed what
 * users see (`checkChanged`), else left to the holder's next batch. The follow is failing while
 * every signal fails, or while the cookies do not open the members-only streams it includes;
 * unhealthy (one `follow.unhealthy` event) after an hour of either.
 */
export async function checkFollow(deps: CheckDeps, follow: Follow, policy: CheckPolicy, now: Date, holding?: Holding): Promise<CheckResult> {
  const { titles, storedDue } = holding ?? { titles: titleRules(follow.rules), storedDue: follow.nextCheckAt };
  const outcome = await lookAtFollow(deps, follow, policy, now, titles);
  const after = afterCheck(follow, outcome);
  if (checkChanged(follow, outcome)) {
    await deps.follows.recordCheck(follow.id, outcome, storedDue);
    return { outcome, after, unwritten: null };
  }
  const unwritten = { id: follow.id, checkedAt: outcome.checkedAt, signals: after.signals, nextCheckAt: after.nextCheckAt, dueBefore: storedDue };
  return { outcome, after, unwritten };
}

/** A check's outcome, nothing written but the sightings and queued streams (as they are decided). */
async function lookAtFollow(deps: CheckDeps, follow: Follow, policy: CheckPolicy, now: Date, titles: TitleRefusal): Promise<CheckOutcome> {
  const looked = await lookAll(deps, follow, policy, now);
  const signals = looked.map((l) => l.health);
  const candidates = dedupe(looked.flatMap((l) => l.candidates));
  const standing = await probeAccess(deps, follow);
  const { queued, refused } = await decideAll(deps, follow, candidates, { ...policy, titles }, now);
  const accessRefused: AccessRefusal | null = refused === null ? standing : { ...refused, since: standing?.since ?? now };
  const answered = signals.some((s) => s.lastError === null);
  const failingSince = answered && accessRefused === null ? null : (follow.failingSince ?? now);
  return {
    checkedAt: now,
    signals,
    failingSince,
    accessRefused,
    queued,
    becameUnhealthy: startsUnhealthySpell(follow, failingSince, now),
  };
}

/**
 * Whether the follow is unhealthy after this check and was not at its previous one: once per spell
 * of failures (a recovery in between starts a new spell), not at every failing check.
 */
function startsUnhealthySpell(follow: Follow, failingSince: Date | null, now: Date): boolean {
  if (healthOf({ paused: false, failingSince }, now) !== 'unhealthy') return false;
  const before = follow.lastCheckedAt;
  return before === null || healthOf({ paused: false, failingSince: follow.failingSince }, before) !== 'unhealthy';
}

interface Look {
  health: SignalHealth;
  candidates: StreamCandidate[];
}

async function lookAll(deps: CheckDeps, follow: Follow, policy: CheckPolicy, now: Date): Promise<Look[]> {
  const looks: Look[] = [];
  for (const name of SIGNALS_OF[follow.kind]) {
    const health = follow.signals.find((s) => s.signal === name) ?? neverLooked(name, now);
    if (health.nextCheckAt.getTime() > now.getTime()) {
      looks.push({ health, candidates: [] });
      continue;
    }
    looks.push(await lookOnce(deps.signals[name], follow, { ...health, lastCheckedAt: now, nextCheckAt: nextLook(policy, name, now) }, deps));
  }
  return looks;
}

async function lookOnce(signal: FollowSignal, follow: Follow, health: SignalHealth, deps: CheckDeps): Promise<Look> {
  const now = health.lastCheckedAt as Date;
  try {
    const host = signal.host(follow);
    if (host !== null) await deps.pacer.wait(host);
    const candidates = await signal.look(follow);
    return { health: { ...health, lastOkAt: now, lastError: null, lastErrorPublic: null, lastErrorAt: null }, candidates };
  } catch (error) {
    const words = (error instanceof Error ? error.message : String(error)) || 'the signal failed without a reason';
    const publicWords = publicErrorWords(error) || 'the signal failed without a reason';
    return { health: { ...health, lastError: words, lastErrorPublic: publicWords, lastErrorAt: now }, candidates: [] };
  }
}

function neverLooked(signal: SignalName, now: Date): SignalHealth {
  return { signal, lastCheckedAt: null, lastOkAt: null, lastError: null, lastErrorAt: null, nextCheckAt: now };
}

function nextLook(policy: CheckPolicy, signal: SignalName, now: Date): Date {
  const jitter = 0.9 + 0.2 * (policy.random ?? Math.random)();
  return new Date(now.getTime() + policy.intervals[signal] * 1000 * jitter);
}

/**
 * One candidate per stream (by id; an HLS broadcast by its URL). What one signal does not know
 * another may: the feed's entry says nothing of members-only or the start, the tabs do, so each
 * field is the first signal's that knows it.
 */
export function dedupe(candidates: StreamCandidate[]): StreamCandidate[] {
  const seen = new Map<string, StreamCandidate>();
  for (const candidate of candidates) {
    const key = candidate.id ?? `url:${candidate.url}`;
    const first = seen.get(key);
    seen.set(key, first === undefined ? candidate : merge(first, candidate));
  }
  return [...seen.values()];
}

function merge(first: StreamCandidate, other: StreamCandidate): StreamCandidate {
  const merged: Record<string, unknown> = { ...first };
  for (const [field, value] of Object.entries(other)) merged[field] ??= value;
  if (first.liveStatus === 'unknown') merged.liveStatus = other.liveStatus;
  return merged as unknown as StreamCandidate;
}

/**
 * Decides every candidate not settled before; returns how many were queued, and the last refusal
 * of a members-only stream the follow includes (its words and URL), or null.
 */
async function decideAll(
  deps: CheckDeps,
  follow: Follow,
  candidates: StreamCandidate[],
  policy: CheckPolicy & { titles: TitleRefusal },
  now: Date,
): Promise<{ queued: number; refused: Omit<AccessRefusal, 'since'> | null }> {
  let queued = 0;
  let refused: Omit<AccessRefusal, 'since'> | null = null;
  for (const broadcast of candidates.filter((c) => c.id === null)) {
    // a broadcast that ended between the look and the queuing is simply not queued; the next look sees the next one
    if (await decideBroadcast(deps, follow, broadcast, policy.titles, now).catch(() => false)) queued += 1;
  }
  const videos = await unsettled(deps, follow, candidates, policy, now);
  const sightings: Sighting[] = [];
  for (const { candidate, known } of videos) {
    const decision: Decision = known
      ? { verdict: 'known', reason: 'Kura has a record of it already', recheckAt: null }
      : await decideVideo(deps, follow, candidate, policy, now);
    if (decision.verdict === 'queued') queued += 1;
    const { accessRefused, ...decided } = decision;
    if (accessRefused !== undefined) refused = { error: accessRefused, probeUrl: candidate.url };
    sightings.push({ followId: follow.id, streamId: candidate.id as string, title: candidate.title, seenAt: now, ...decided });
    // kept as each is decided, so a check cut short never queues one twice
    await deps.follows.recordSightings(sightings.slice(-1));
  }
  return { queued, refused };
}

/**
 * The videos among the candidates that no final sighting settled and no `later` one holds back yet
 * (a signal saying the stream was moved into the horizon lets it through), and whether a record has them.
 */
async function unsettled(deps: CheckDeps, follow: Follow, candidates: StreamCandidate[], policy: CheckPolicy, now: Date) {
  const videos = candidates.filter((c): c is StreamCandidate & { id: string } => c.id !== null);
  const ids = videos.map((c) => c.id);
  const earlier = new Map((await deps.follows.sightings(follow.id, ids)).map((s) => [s.streamId, s]));
  const open = videos.filter((c) => {
    const sighting = earlier.get(c.id);
    if (sighting === undefined) return true;
    if (sighting.recheckAt === null) return false;
    const movedIn = c.scheduledStart !== null && c.scheduledStart.getTime() - now.getTime() <= policy.horizonSeconds * 1000;
    return movedIn || sighting.recheckAt.getTime() <= now.getTime();
  });
  if (open.length === 0) return []; // an off-air look asks the database nothing
  const records = new Set((await deps.livestreams.findManyById(open.map((c) => c.id))).map((r) => r.id));
  return open.map((candidate) => ({ candidate, known: records.has(candidate.id) }));
}
