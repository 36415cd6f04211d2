#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { ConfigError, loadConfig, type Config } from './config.js';
import { AppError } from './core/errors.js';
import { importLivestreams } from './core/livestream/import-livestreams.js';
import { archiveStream } from './core/workflow/archive-stream.js';
import { addLocalUser } from './core/accounts/add-local-user.js';
import { createTokenForUser } from './core/accounts/create-token-for-user.js';
import { LOCAL_PROVIDER } from './core/accounts/account.js';
import { createLogger, startKura } from './main.js';
import { FOLLOW_USAGE, runFollow } from './cli/follow-command.js';
import { runWebhook, WEBHOOK_USAGE } from './cli/webhook-command.js';
import { createAccountStores } from './wiring/accounts.js';
import { openDatabase, startScheduler, type Database } from './wiring/database.js';
import { createSearch, reindex } from './wiring/search.js';
import { createSources } from './wiring/sources.js';
import { createStore, createVerifyDeps, verifyPolicy } from './wiring/storage.js';
import type { Finding } from './core/archive/verify-archive.js';
import { verifyAllArchives, verifyDueArchives, verifyOneArchive, type VerifySummary } from './core/archive/verify-archives.js';
import { tuneV8 } from './cli/v8-tuning.js';
import { escapeLines, shown } from './cli/terminal-text.js';
import { parseCommandArgs } from './cli/command-args.js';

const USAGE = `Usage: kura <command>

Commands:
  serve          run Kura (api and worker, per KURA_ROLE)
  migrate        bring the database schema up to date and exit
  import FILE    import records in the /api/history JSON shape (all or nothing)
  archive URL [--title T] [--channel C] [--quality Q]
                 queue a YouTube livestream or an HLS stream (.m3u8) for archiving, as the operator
  user add NAME [--admin]
                 create a local account (or set its password and role); the password is read from stdin
  token create USER
                 print a new API token for USER (a local account name, or provider/userId)
${FOLLOW_USAGE}
${WEBHOOK_USAGE}
  search reindex rebuild the search index from the records (KURA_SEARCH engine)
  verify [ID|--all]
                 check stored archives now: without arguments what one hourly run checks, ID one
                 record's archive (size and sha256), --all every archive (size and sha256);
                 exits 1 when one is missing or corrupt
  help           show this text

Configuration comes from the environment and .env; see .env.example.`;

/** Exit codes: 0 done, 1 failed, 2 bad configuration or usage. */
async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (!['serve', 'migrate', 'import', 'archive', 'user', 'token', 'search', 'verify', 'follow', 'webhook'].includes(command)) {
    console.error(`${shown`kura: unknown command "${command}"`}\n\n${USAGE}`);
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
  if (command === 'user') return runUserAdd(config, args);
  if (command === 'token') return runTokenCreate(config, args);
  if (command === 'search') return runSearchReindex(config, args);
  if (command === 'verify') return runVerify(config, args);
  if (command === 'follow') return runFollow(config, args, createLogger(config));
  if (command === 'webhook') return runWebhook(config, args, createLogger(config));
  return runImport(config, args[0] as string);
}

async function serve(config: Config): Promise<number> {
  const log = createLogger(config);
  let lost: ((error: Error) => void) | undefined;
  const databaseLost = new Promise<Error>((resolve) => (lost = resolve));
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

async function runMigrate(config: Config): Promise<number> {
  const database = await openDatabase(config, createLogger(config));
  await database.close();
  console.log('kura: the database schema is up to date');
  return 0;
}

async function runArchive(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { title: { type: 'string' }, channel: { type: 'string' }, quality: { type: 'string' } });
  if (positionals.length !== 1) {
    console.error('kura: archive takes exactly one URL');
    return 2;
  }
  const log = createLogger(config);
  const database = await openDatabase(config, log);
  const jobs = await startScheduler(database, log);
  try {
    const record = await archiveStream(
      { livestreams: database.livestreams, captures: database.captures, scheduler: jobs, source: createSources(config).source },
      {
        url: positionals[0] as string,
        submitter: `cli/${userInfo().username}`,
        title: values.title,
        channelName: values.channel,
        quality: values.quality,
        now: new Date(),
      },
    );
    console.log(shown`kura: ${record.id} is ${record.status}; submitters: ${record.submitters.join(', ')}`);
    return 0;
  } finally {
    await jobs.stop(1000);
    await database.close();
  }
}

async function runUserAdd(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { admin: { type: 'boolean' } });
  if (positionals[0] !== 'add' || positionals.length !== 2) {
    console.error('kura: usage: kura user add NAME [--admin] (password on stdin)');
    return 2;
  }
  const password = (await readStdin()).replace(/\r?\n$/, '');
  return withDatabase(config, async (database) => {
    const user = await addLocalUser(createAccountStores(database.pool), { name: positionals[1] as string, password, role: values.admin ? 'admin' : 'user' });
    console.log(shown`kura: local account ${user.name} saved (${user.role}); it submits as local/${user.providerUserId}`);
    return 0;
  });
}

async function runTokenCreate(config: Config, args: string[]): Promise<number> {
  if (args[0] !== 'create' || args.length !== 2) {
    console.error('kura: usage: kura token create USER (a local account name, or provider/userId)');
    return 2;
  }
  const [provider, userId] = (args[1] as string).includes('/') ? (args[1] as string).split(/\/(.*)/s) : [LOCAL_PROVIDER, args[1] as string];
  return withDatabase(config, async (database) => {
    const created = await createTokenForUser(createAccountStores(database.pool), { provider: provider as string, userId: userId as string, name: 'cli' });
    console.log(created.token);
    return 0;
  });
}

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

async function runVerify(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { all: { type: 'boolean' } });
  if (positionals.length > 1 || (values.all === true && positionals.length > 0)) {
    console.error('kura: usage: kura verify [ID|--all]');
    return 2;
  }
  return withDatabase(config, async (database) => {
    const deps = createVerifyDeps(database, createStore(config, database));
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

/** Opens the database (migrating it), runs `work`, and closes it whatever happens. */
async function withDatabase(config: Config, work: (database: Database) => Promise<number>): Promise<number> {
  const database = await openDatabase(config, createLogger(config));
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

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

tuneV8();
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError && error.problems.length === 1) {
      console.error(shown`kura: cannot start: ${error.problems[0]}`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      console.error(`kura: cannot start, the configuration has problems:\n${error.problems.map((p) => shown`  - ${p}`).join('\n')}`);
      process.exit(2);
    }
    if (error instanceof AppError) {
      console.error(`kura: ${escapeLines(error.detail)}`);
      process.exit(1);
    }
    console.error(shown`kura: ${(error as Error).message ?? error}`);
    if ((error as Error).cause) console.error(shown`  cause: ${String((error as Error).cause)}`);
    process.exit(1);
  },
);
