// Decisions: docs/decisions/0077-retention.md
import type { LivestreamStatus } from '../vocabulary.js';
import { hasLimits, type RetentionRules } from './retention-rules.js';

/** A record as retention weighs it. */
export interface RetentionCandidate {
  id: string;
  title: string;
  status: LivestreamStatus;
  channelId: string;
  /** The follow that queued it (its first `follow/…` submitter), or null. */
  followId: string | null;
  pinned: boolean;
  /** A takedown is already under way (it is not planned again). */
  takenDown: boolean;
  sizeBytes: number;
  /** When it ended (else was created): newer archives are kept first. */
  endedAt: Date;
}

/** A rule set with the name its reasons give ("follow Ninomae", "channel UC…", "the instance default"). */
export interface NamedRules {
  name: string;
  rules: RetentionRules;
}

/** Every rule set: the instance default, each follow's and each channel's (by id). */
export interface RetentionSettings {
  defaults: RetentionRules;
  follows: ReadonlyMap<string, NamedRules>;
  channels: ReadonlyMap<string, NamedRules>;
}

/** An archive the rules remove, and why ("retention: keep the last 5 of follow NAME"). */
export interface PlannedRemoval {
  id: string;
  title: string;
  sizeBytes: number;
  reason: string;
  /** The rule set that removes it: `follow/{id}`, `channel/{id}` or `default`. */
  scope: string;
}

/** What a plan comes to: the removals, oldest of each group last, and the bytes they free. */
export interface RetentionPlan {
  removals: PlannedRemoval[];
  bytes: number;
}

const GB = 1e9;
const DAY_MS = 86_400_000;

/**
 * The one plan of what the rules remove at `now`, used by the job, `kura retention` and the
 * preview. Only finished, unpinned archives with no takedown under way are weighed. Each archive
 * falls under the most specific rule set with a limit: the follow that queued it, else its
 * channel's, else the default; N and G count over the archives that set covers, newest first, and
 * an archive is kept while it is within every limit of its set, so what is kept is a newest run.
 */
export function planRetention(candidates: readonly RetentionCandidate[], settings: RetentionSettings, now: Date): RetentionPlan {
  const groups = new Map<string, { named: NamedRules; archives: RetentionCandidate[] }>();
  for (const archive of candidates) {
    if (archive.status !== 'finished' || archive.pinned || archive.takenDown) continue;
    const [scope, named] = ruleSetOf(archive, settings);
    if (!hasLimits(named.rules)) continue;
    const group = groups.get(scope) ?? { named, archives: [] };
    group.archives.push(archive);
    groups.set(scope, group);
  }
  const removals: PlannedRemoval[] = [];
  for (const [scope, { named, archives }] of groups) {
    archives.sort((a, b) => b.endedAt.getTime() - a.endedAt.getTime() || (a.id < b.id ? -1 : 1));
    // the bytes of this archive and every newer one: what is kept is always the newest run of the group
    let bytes = 0;
    archives.forEach((archive, index) => {
      bytes += archive.sizeBytes;
      const broken = brokenRule(named.rules, { index, ageMs: now.getTime() - archive.endedAt.getTime(), bytes });
      if (broken !== null)
        removals.push({ id: archive.id, title: archive.title, sizeBytes: archive.sizeBytes, reason: `retention: ${broken} of ${named.name}`, scope });
    });
  }
  return planOf(removals);
}

/** A plan of these removals, with the bytes they free. */
export function planOf(removals: PlannedRemoval[]): RetentionPlan {
  return { removals, bytes: removals.reduce((sum, removal) => sum + removal.sizeBytes, 0) };
}

/** The rule set an archive falls under, with its scope key. */
export function ruleSetOf(archive: Pick<RetentionCandidate, 'followId' | 'channelId'>, settings: RetentionSettings): [string, NamedRules] {
  const follow = archive.followId === null ? undefined : settings.follows.get(archive.followId);
  if (follow !== undefined && hasLimits(follow.rules)) return [`follow/${archive.followId}`, follow];
  const channel = settings.channels.get(archive.channelId);
  if (channel !== undefined && hasLimits(channel.rules)) return [`channel/${archive.channelId}`, channel];
  return ['default', { name: 'the instance default', rules: settings.defaults }];
}

/** The first limit an archive breaks (in the order N, D, G), in words; null: kept. */
function brokenRule(rules: RetentionRules, at: { index: number; ageMs: number; bytes: number }): string | null {
  if (rules.keepLast !== null && at.index >= rules.keepLast) return `keep the last ${rules.keepLast}`;
  if (rules.maxAgeDays !== null && at.ageMs > rules.maxAgeDays * DAY_MS) return `keep archives younger than ${rules.maxAgeDays} days`;
  if (rules.maxGb !== null && at.bytes > rules.maxGb * GB) return `keep at most ${rules.maxGb} GB`;
  return null;
}
