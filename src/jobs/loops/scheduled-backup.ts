// Decisions: docs/decisions/0122-scheduled-backups.md
import type { BackgroundLog } from '../job-work.js';
import { startEvery } from '../runtime/every.js';

/** What one scheduled backup did (adapters/db/backup-schedule.ts does it); null: none was due, or another worker took it. */
export type ScheduledBackupOutcome = {
  file: string;
  bytes: number;
  rows: number;
  archives: number;
  /** The older backups removed, past the number kept. */
  removed: string[];
} | null;

/** Takes the day's backup into KURA_BACKUP_DIR when it has none yet; unset where backups are off. */
export interface ScheduledBackups {
  takeIfDue(now: Date): Promise<ScheduledBackupOutcome>;
}

/**
 * The scheduled-backup loop of the catalogue: at start and on its timer, takes the day's backup
 * when the folder holds none since the start of the UTC day, and logs it with the backups removed
 * past the number kept; a failure is logged, counted (`kura_backups_total{result="failed"}`) and
 * tried again at the next look. Nothing where KURA_BACKUP_DIR is unset.
 */
export function startScheduledBackupLoop(
  context: { backups?: ScheduledBackups | null; log: BackgroundLog; activity?: { backups: Record<'taken' | 'failed', number> } },
  wake: { everySeconds: number },
): () => Promise<void> {
  const backups = context.backups;
  if (backups === undefined || backups === null) return async () => undefined;
  const look = async () => {
    const outcome = await backups.takeIfDue(new Date());
    if (outcome === null) return;
    if (context.activity !== undefined) context.activity.backups.taken += 1;
    const { file, bytes, rows, archives, removed } = outcome;
    context.log.info({ file, bytes, rows, archives, removed }, `backup taken: ${file} (${rows} rows, ${archives} archives listed, ${bytes} bytes)`);
  };
  return startEvery(look, {
    everySeconds: wake.everySeconds,
    onError: (error) => {
      if (context.activity !== undefined) context.activity.backups.failed += 1;
      context.log.warn({ err: error }, `backup failed (tried again within the hour): ${error.message}`);
    },
  });
}
