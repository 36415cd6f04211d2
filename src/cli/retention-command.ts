import type { Config } from '../config/config.js';
import { applyRetention, currentPlan } from '../core/retention/apply-retention.js';
import type { PlannedRemoval } from '../core/retention/plan-retention.js';
import { createRetentionDeps } from '../wiring/retention.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { printListing } from './listing.js';
import { withDatabase } from './with-database.js';

/** `kura retention [--dry-run] [--json]`: what the retention rules remove, now. */
export const retentionCommand: Command = {
  run: runRetention,
};

async function runRetention(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
  if (positionals.length > 0) {
    console.error('kura: usage: kura retention [--dry-run] [--json]');
    return 2;
  }
  const json = values.json === true;
  return withDatabase(config, async (database) => {
    const now = new Date();
    let removals: PlannedRemoval[];
    let failed = 0;
    if (values['dry-run'] === true) removals = (await currentPlan(database, config.retention, now)).removals;
    else {
      removals = await applyRetention(await createRetentionDeps(config, database), config.retention, now, {
        removed: () => undefined,
        failed: (id, error) => {
          failed += 1;
          console.error(`kura: ${id} was not removed: ${error.message} (the next run tries again)`);
        },
      });
    }
    printListing(
      ['id', 'title', 'size', 'reason'],
      removals.map(({ id, title, sizeBytes, reason }) => ({ id, title, size: sizeBytes, reason })),
      json,
    );
    const bytes = removals.reduce((sum, removal) => sum + removal.sizeBytes, 0);
    if (!json)
      console.log(`${values['dry-run'] === true ? 'would free' : 'freed'} ${bytes} bytes (${removals.length} archive${removals.length === 1 ? '' : 's'})`);
    return failed > 0 ? 1 : 0;
  });
}
