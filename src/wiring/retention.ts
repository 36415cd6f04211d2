import { createAdminActionRepo } from '../adapters/db/admin-action-repo.js';
import type { Config } from '../config/config.js';
import type { ApplyRetentionDeps } from '../core/retention/apply-retention.js';
import type { Database } from './database.js';
import { createStore } from './storage.js';

/** What `kura retention` applies the rules with: the records and their chunks, the archive store, the admin actions it logs. */
export async function createRetentionDeps(config: Config, database: Database): Promise<ApplyRetentionDeps> {
  return { ...database, store: await createStore(config, database), adminActions: createAdminActionRepo(database.pool) };
}
