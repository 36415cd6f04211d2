import { readFile } from 'node:fs/promises';
import type { Config } from '../config/config.js';
import { importLivestreams } from '../core/livestream/import-livestreams.js';
import type { Command } from './command.js';
import { shown } from './terminal-text.js';
import { withDatabase } from './with-database.js';

/** `kura import FILE`: records in the /api/history JSON shape, all or nothing. */
export const importCommand: Command = {
  usage: '  import FILE    import records in the /api/history JSON shape (all or nothing)',
  refuse: (args) => (args.length === 1 ? null : 'import takes exactly one FILE'),
  run: (config, args) => runImport(config, args[0] as string),
};

async function runImport(config: Config, file: string): Promise<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    console.error(shown`kura: cannot import ${file}: ${(error as Error).message}`);
    return 1;
  }
  return withDatabase(config, async (database) => {
    const started = Date.now();
    const result = await importLivestreams(database, parsed, { now: new Date(), neverLiveSeconds: config.capture.neverLiveSeconds });
    console.log(
      shown`kura: imported ${result.inserted} new and ${result.updated} updated records from ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return 0;
  });
}
