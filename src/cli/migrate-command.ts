import { createCommandLogger } from '../wiring/logger.js';
import { openDatabase } from '../wiring/database.js';
import type { Command } from './command.js';

/** `kura migrate`: brings the database schema up to date (opening the database does) and exits. */
export const migrateCommand: Command = {
  async run(config) {
    const database = await openDatabase(config, createCommandLogger(config));
    await database.close();
    console.log('kura: the database schema is up to date');
    return 0;
  },
};
