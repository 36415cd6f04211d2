import type { Config } from '../config/config.js';
import { createCommandLogger } from '../wiring/logger.js';
import { openDatabase, type Database } from '../wiring/database.js';

/** Opens the database (migrating it), runs `work`, and closes it whatever happens. */
export async function withDatabase(config: Config, work: (database: Database) => Promise<number>): Promise<number> {
  const database = await openDatabase(config, createCommandLogger(config));
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
