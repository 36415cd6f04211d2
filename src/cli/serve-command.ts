// Decisions: docs/decisions/0118-releases-and-upgrades.md
import type { Config } from '../config/config.js';
import { startKura } from '../main.js';
import { createLogger } from '../wiring/logger.js';
import { release } from '../wiring/release.js';
import type { Command } from './command.js';

/** `kura serve`: runs Kura until SIGINT or SIGTERM (a second one stops it at once), or until its embedded PostgreSQL is lost (exit 1). */
export const serveCommand: Command = {
  run: serve,
};

async function serve(config: Config): Promise<number> {
  const log = createLogger(config);
  let lost: ((error: Error) => void) | undefined;
  const databaseLost = new Promise<Error>((resolve) => (lost = resolve));
  const { version, commit } = release();
  log.info({ version, commit, role: config.role, node: process.version }, `kura ${version} starting`);
  const kura = await startKura(config, log, (error) => lost?.(error));
  const stopped = await Promise.race([
    databaseLost,
    new Promise<null>((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        log.info({ signal }, 'shutting down');
        // a second signal means "now"
        process.once('SIGINT', () => process.exit(130));
        process.once('SIGTERM', () => process.exit(143));
        resolve(null);
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    }),
  ]);
  if (stopped !== null) log.fatal({ err: stopped }, `${stopped.message}; Kura stops (its log says why PostgreSQL did not start)`);
  await kura.stop();
  log.info('stopped');
  return stopped === null ? 0 : 1;
}
