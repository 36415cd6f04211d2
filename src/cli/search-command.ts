import type { Config } from '../config/config.js';
import { createSearch, reindex } from '../wiring/search.js';
import type { Command } from './command.js';
import { withDatabase } from './with-database.js';

/** `kura search reindex`: rebuilds the search index of the configured engine from the records. */
export const searchCommand: Command = {
  run: runSearchReindex,
};

async function runSearchReindex(config: Config, args: string[]): Promise<number> {
  if (args[0] !== 'reindex' || args.length !== 1) {
    console.error('kura: usage: kura search reindex');
    return 2;
  }
  if (config.search.kind === 'off') {
    console.error('kura: search is off (KURA_SEARCH=off): nothing to reindex');
    return 2;
  }
  return withDatabase(config, async (database) => {
    const started = Date.now();
    const count = await reindex(createSearch(config, database.pool, null), database, config.publicUrl);
    console.log(`kura: search index (${config.search.kind}) rebuilt from ${count} records in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  });
}
