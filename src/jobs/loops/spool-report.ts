// Decisions: docs/decisions/0078-disk-space-and-a-full-disk.md
import { spoolReportDue, type DiskReports, type DiskSpace, type SpoolReport } from '../../core/archive/disk-figures.js';
import type { BackgroundLog } from '../job-work.js';
import { startEvery } from '../runtime/every.js';

/** What a worker reports its spool's space with: its statfs, and where the reports go. */
export interface SpoolReporting {
  read: () => Promise<DiskSpace>;
  reports: Pick<DiskReports, 'reportSpool'>;
}

/**
 * The spool-report loop of the catalogue: at start and on its timer, looks at this worker's spool
 * space and notes it in PostgreSQL when it moved or the last note is getting old (spoolReportDue),
 * where the api (perhaps on another machine) reads it for /metrics and the admins' stats. Nothing
 * where it is not wired.
 */
export function startSpoolReportLoop(
  context: { spoolReport?: SpoolReporting; settings: { workerId: string }; log: BackgroundLog },
  wake: { everySeconds: number },
): () => Promise<void> {
  const reporting = context.spoolReport;
  if (reporting === undefined) return async () => undefined;
  let last: SpoolReport | null = null;
  const report = async () => {
    const space = await reporting.read();
    const now = Date.now();
    if (!spoolReportDue(last, space, now)) return;
    await reporting.reports.reportSpool(context.settings.workerId, space);
    last = { space, atMs: now };
  };
  return startEvery(report, {
    everySeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, 'reporting the spool’s free space failed'),
  });
}
