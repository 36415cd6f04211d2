import type { Config } from '../config/config.js';
import type { Finding } from '../core/archive/verify-archive.js';
import { verifyAllArchives, verifyDueArchives, verifyOneArchive, type VerifySummary } from '../core/archive/verify-archives.js';
import { createStore, createVerifyDeps, verifyPolicy } from '../wiring/storage.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { shown } from './terminal-text.js';
import { withDatabase } from './with-database.js';

/** `kura verify [ID|--all]`: checks stored archives now, one line per finding; exits 1 when one is missing or corrupt. */
export const verifyCommand: Command = {
  run: runVerify,
};

async function runVerify(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { all: { type: 'boolean' } });
  if (positionals.length > 1 || (values.all === true && positionals.length > 0)) {
    console.error('kura: usage: kura verify [ID|--all]');
    return 2;
  }
  return withDatabase(config, async (database) => {
    const deps = createVerifyDeps(database, await createStore(config, database));
    const print = (finding: Finding) => console.log(shown`${finding.result.padEnd(7)} ${finding.id}  ${finding.detail}`);
    const id = positionals[0];
    let summary: VerifySummary | 'external';
    if (values.all === true) summary = await verifyAllArchives(deps, print);
    else if (id !== undefined) summary = await verifyOneArchive(deps, id, print);
    else summary = await verifyDueArchives(deps, verifyPolicy(config), print);
    if (summary === 'external') {
      console.log(shown`kura: ${id} is archived outside this instance (an imported URL): nothing stored here to verify`);
      return 0;
    }
    const { checked, hashed, bytesRead, ok, missing, corrupt, errors } = summary;
    const failed = errors > 0 ? `, ${errors} could not be checked` : '';
    console.log(
      `kura: verified ${checked} archives (${hashed} sha256 checks, ${bytesRead} bytes read): ${ok} ok, ${missing} missing, ${corrupt} corrupt${failed}`,
    );
    return missing + corrupt + errors > 0 ? 1 : 0;
  });
}
