// Decisions: docs/decisions/0052-archive-integrity.md
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { ArchiveCheckRepo } from './integrity.js';
import type { LivestreamRepo } from '../records/ports.js';
import { verifyArchive, type Finding, type VerifyDeps } from './verify-archive.js';

export interface VerifyArchivesDeps extends VerifyDeps {
  checks: ArchiveCheckRepo;
}

/** How much one scheduled run does (KURA_VERIFY_EVERY_DAYS, KURA_VERIFY_GB_PER_HOUR). */
export interface VerifyPolicy {
  /** Every stored archive is checked (exists, size) at least this often. */
  everyDays: number;
  /** Bytes one run may read to compare sha256s (a run is scheduled every hour). */
  bytesPerRun: number;
}

/** Scheduled runs per day (the `verify-archives` schedule is hourly). */
export const VERIFY_RUNS_PER_DAY = 24;
/** A run checks at least this many archives' existence and size: a small archive checks all often. */
const MIN_CHECKS_PER_RUN = 100;
/** A run hashes at most this many archives, however small (the budget is in bytes). */
const MAX_HASHES_PER_RUN = 1000;
/** `--all` reads the archives in pages of this many. */
const PAGE = 200;

export interface VerifySummary {
  checked: number;
  hashed: number;
  bytesRead: number;
  ok: number;
  missing: number;
  corrupt: number;
  errors: number;
}

type Report = (finding: Finding) => void;

/**
 * One scheduled run. First a rolling sample of sha256 checks, the archives hashed longest ago (or
 * never) first, while `bytesPerRun` lasts: the next archive is read only if it fits in what is
 * left, except while nothing was read yet (an archive larger than the budget is not skipped for
 * ever). Then the existence and size of the archives checked longest ago: twice the share that
 * checks every archive within `everyDays` (so missed runs are caught up), at least
 * MIN_CHECKS_PER_RUN.
 */
export async function verifyDueArchives(deps: VerifyArchivesDeps, policy: VerifyPolicy, report: Report): Promise<VerifySummary> {
  const started = new Date();
  const tally = createTally(report);
  let spent = 0;
  if (policy.bytesPerRun > 0) {
    for (const archive of await deps.checks.leastRecentlyHashed(started, MAX_HASHES_PER_RUN)) {
      if (spent > 0 && spent + archive.fileSizeBytes > policy.bytesPerRun) break;
      spent += (await tally.add(verifyArchive(deps, archive, { hash: true }))).bytesRead;
      if (spent >= policy.bytesPerRun) break;
    }
  }
  const counts = await deps.checks.counts();
  const stored = counts.ok + counts.missing + counts.corrupt + counts.unverified;
  const quota = Math.max(MIN_CHECKS_PER_RUN, Math.ceil((2 * stored) / (VERIFY_RUNS_PER_DAY * policy.everyDays)));
  for (const archive of await deps.checks.leastRecentlyChecked(started, quota)) {
    if (tally.seen.has(archive.id)) continue; // could not be checked above: once per run is enough
    await tally.add(verifyArchive(deps, archive, { hash: false }));
  }
  return tally.summary;
}

/** Checks every stored archive fully (size and sha256), whatever the budget: `kura verify --all`. */
export async function verifyAllArchives(deps: VerifyArchivesDeps, report: Report): Promise<VerifySummary> {
  const tally = createTally(report);
  for (let after = ''; ;) {
    const page = await deps.checks.page(after, PAGE);
    for (const archive of page) await tally.add(verifyArchive(deps, archive, { hash: true }));
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE) return tally.summary;
    after = last.id;
  }
}

/** Counts findings as they come and hands each to `report`. */
export function createTally(report: Report) {
  const summary: VerifySummary = { checked: 0, hashed: 0, bytesRead: 0, ok: 0, missing: 0, corrupt: 0, errors: 0 };
  const seen = new Set<string>();
  return {
    summary,
    seen,
    async add(checking: Promise<Finding>): Promise<Finding> {
      const finding = await checking;
      seen.add(finding.id);
      summary.checked += 1;
      summary.hashed += finding.hashed ? 1 : 0;
      summary.bytesRead += finding.bytesRead;
      if (finding.result === 'error') summary.errors += 1;
      else summary[finding.result] += 1;
      report(finding);
      return finding;
    },
  };
}

/**
 * Checks one record's archive fully (size and sha256): `kura verify ID`. Resolves `external` for
 * an archive kept outside this instance (an imported URL: nothing stored here to check). Throws
 * `livestream_not_found`, `archive_not_ready`.
 */
export async function verifyOneArchive(
  deps: VerifyArchivesDeps & { livestreams: LivestreamRepo },
  id: string,
  report: Report,
): Promise<VerifySummary | 'external'> {
  const archive = await deps.checks.find(id);
  if (archive === null) {
    const record = await getLivestream(deps, id);
    if (record.archive?.externalUrl) return 'external';
    throw new AppError('conflict', 'archive_not_ready', `${id} has no archive stored here (status: ${record.status}).`);
  }
  const tally = createTally(report);
  await tally.add(verifyArchive(deps, archive, { hash: true }));
  return tally.summary;
}
