import type { Finding } from '../../core/archive/verify-archive.js';
import { verifyDueArchives, type VerifyArchivesDeps, type VerifyPolicy, type VerifySummary } from '../../core/archive/verify-archives.js';
import { defineJob } from '../job-definition.js';
import type { BackgroundLog, JobWork } from '../job-work.js';
import { NoPayload } from '../runtime/payloads.js';

type Work = Pick<JobWork, 'verify' | 'log'>;

/** Checks that the stored archives are there and whole, within each run's budget (KURA_VERIFY_*). */
export const verifyArchivesJob = defineJob({
  name: 'verify-archives',
  payload: NoPayload,
  // a run that fails (the database away) is not retried: the next hour's run does its work
  policy: { retryLimit: 0, expireInSeconds: 3 * 3600 },
  concurrency: () => 1,
  dedup: null,
  // hourly, at :23: KURA_VERIFY_GB_PER_HOUR is each run's budget
  schedule: { everySeconds: 3600, atSecond: 23 * 60 },
  async handle(work: Work) {
    if (work.verify !== undefined && work.log !== undefined) await runVerifyArchives(work.verify.deps, work.verify.policy, work.log);
  },
  // no one record to fail: the next hour's run takes over, and the worker log says why this one failed
  onFailure: async () => undefined,
});

/** One scheduled run: every finding worth telling goes to the server log, then a summary. */
export async function runVerifyArchives(deps: VerifyArchivesDeps, policy: VerifyPolicy, log: BackgroundLog): Promise<VerifySummary> {
  const summary = await verifyDueArchives(deps, policy, (finding) => logFinding(log, finding));
  log.info({ verify: summary }, 'archives verified');
  return summary;
}

/**
 * A missing or corrupt archive (found again at each check), one that could not be checked, and one
 * fine again after a finding are logged; a routine `ok` is only counted in the summary.
 */
export function logFinding(log: BackgroundLog, finding: Finding): void {
  const fields = { livestreamId: finding.id, integrity: finding.result, previous: finding.previous, hashed: finding.hashed, detail: finding.detail };
  if (finding.result === 'missing' || finding.result === 'corrupt') log.warn(fields, `archive ${finding.result}: ${finding.detail}`);
  else if (finding.result === 'error') log.warn(fields, `archive not verified: ${finding.detail}`);
  else if (finding.previous !== null && finding.previous !== 'ok') log.info(fields, `archive fine again (was ${finding.previous}): ${finding.detail}`);
}
