import type { Finding } from '../core/archive/verify-archive.js';
import { verifyDueArchives, type VerifyArchivesDeps, type VerifyPolicy, type VerifySummary } from '../core/archive/verify-archives.js';

/** The slice of a pino logger the run writes to. */
export interface FindingLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** One scheduled `verify-archives` run: every finding worth telling goes to the server log, then a summary. */
export async function runVerifyArchives(deps: VerifyArchivesDeps, policy: VerifyPolicy, log: FindingLog): Promise<VerifySummary> {
  const summary = await verifyDueArchives(deps, policy, (finding) => logFinding(log, finding));
  log.info({ verify: summary }, 'archives verified');
  return summary;
}

/**
 * A missing or corrupt archive (found again at each check), one that could not be checked, and one
 * fine again after a finding are logged; a routine `ok` is only counted in the summary.
 */
export function logFinding(log: FindingLog, finding: Finding): void {
  const fields = { livestreamId: finding.id, integrity: finding.result, previous: finding.previous, hashed: finding.hashed, detail: finding.detail };
  if (finding.result === 'missing' || finding.result === 'corrupt') log.warn(fields, `archive ${finding.result}: ${finding.detail}`);
  else if (finding.result === 'error') log.warn(fields, `archive not verified: ${finding.detail}`);
  else if (finding.previous !== null && finding.previous !== 'ok') log.info(fields, `archive fine again (was ${finding.previous}): ${finding.detail}`);
}
