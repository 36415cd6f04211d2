import { readFile } from 'node:fs/promises';
import type { Config } from '../config/config.js';
import { importLivestreams } from '../core/records/import-livestreams.js';
import { parseBaseUrl } from '../core/records/original-export.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { shown } from './terminal-text.js';
import { withDatabase } from './with-database.js';

const OPTIONS = { 'base-url': { type: 'string' } } as const;

/** `kura import FILE [--base-url URL]`: records in the /api/history JSON shape, all or nothing. */
export const importCommand: Command = {
  refuse: (args) => {
    let parsed;
    try {
      parsed = parseCommandArgs(args, OPTIONS);
    } catch (error) {
      return (error as Error).message;
    }
    const { values, positionals } = parsed;
    if (positionals.length !== 1) return 'import takes exactly one FILE';
    const base = values['base-url'];
    if (base !== undefined && parseBaseUrl(base) === null) return shown`--base-url must be an http(s) URL such as https://archive.example (got "${base}")`;
    return null;
  },
  run: (config, args) => {
    const { values, positionals } = parseCommandArgs(args, OPTIONS);
    return runImport(config, positionals[0] as string, values['base-url']);
  },
};

async function runImport(config: Config, file: string, baseUrl: string | undefined): Promise<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    console.error(shown`kura: cannot import ${file}: ${(error as Error).message}`);
    return 1;
  }
  return withDatabase(config, async (database) => {
    const started = Date.now();
    const deadline = { now: new Date(), neverLiveSeconds: config.capture.neverLiveSeconds };
    const result = await importLivestreams(database, parsed, deadline, baseUrl);
    console.log(
      shown`kura: imported ${result.inserted} new and ${result.updated} updated records from ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return 0;
  });
}
