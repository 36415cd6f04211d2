#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.js';
import { AppError } from './core/errors.js';
import { importLivestreams } from './core/import-livestreams.js';
import { archiveStream } from './core/archive-stream.js';
import { createLogger, createSources, openDatabase, startKura, startScheduler } from './main.js';

const USAGE = `Usage: kura <command>

Commands:
  serve          run Kura (api and worker, per KURA_ROLE)
  migrate        bring the database schema up to date and exit
  import FILE    import records in the /api/history JSON shape (all or nothing)
  archive URL [--title T] [--channel C] [--quality Q]
                 queue a YouTube livestream or an HLS stream (.m3u8) for archiving, as the operator
  help           show this text

Configuration comes from the environment and .env; see .env.example.`;

/** Exit codes: 0 done, 1 failed, 2 bad configuration or usage. */
async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (!['serve', 'migrate', 'import', 'archive'].includes(command)) {
    console.error(`kura: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  if (command === 'import' && args.length !== 1) {
    console.error('kura: import takes exactly one FILE');
    return 2;
  }
  const config = loadConfig();
  if (command === 'serve') return serve(config);
  if (command === 'migrate') return runMigrate(config);
  if (command === 'archive') return runArchive(config, args);
  return runImport(config, args[0] as string);
}

async function serve(config: Config): Promise<number> {
  const log = createLogger(config);
  const kura = await startKura(config, log);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info({ signal }, 'shutting down');
      // a second signal means "now"
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  await kura.stop();
  log.info('stopped');
  return 0;
}

async function runMigrate(config: Config): Promise<number> {
  const database = await openDatabase(config, createLogger(config));
  await database.close();
  console.log('kura: the database schema is up to date');
  return 0;
}

async function runArchive(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { title: { type: 'string' }, channel: { type: 'string' }, quality: { type: 'string' } },
  });
  if (positionals.length !== 1) {
    console.error('kura: archive takes exactly one URL');
    return 2;
  }
  const log = createLogger(config);
  const database = await openDatabase(config, log);
  const jobs = await startScheduler(config, database, log);
  try {
    const record = await archiveStream(
      { livestreams: database.livestreams, scheduler: jobs, source: createSources(config) },
      {
        url: positionals[0] as string,
        submitter: `cli/${userInfo().username}`,
        title: values.title,
        channelName: values.channel,
        quality: values.quality,
        now: new Date(),
      },
    );
    console.log(`kura: ${record.id} is ${record.status}; submitters: ${record.submitters.join(', ')}`);
    return 0;
  } finally {
    await jobs.stop(1000);
    await database.close();
  }
}

async function runImport(config: Config, file: string): Promise<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    console.error(`kura: cannot import ${file}: ${(error as Error).message}`);
    return 1;
  }
  const database = await openDatabase(config, createLogger(config));
  try {
    const started = Date.now();
    const result = await importLivestreams(database, parsed);
    console.log(`kura: imported ${result.inserted} new and ${result.updated} updated records from ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(`kura: cannot start, the configuration has problems:\n${error.problems.map((p) => `  - ${p}`).join('\n')}`);
      process.exit(2);
    }
    if (error instanceof AppError) {
      console.error(`kura: ${error.detail}`);
      process.exit(1);
    }
    console.error(`kura: ${(error as Error).message ?? error}`);
    if ((error as Error).cause) console.error(`  cause: ${String((error as Error).cause)}`);
    process.exit(1);
  },
);
