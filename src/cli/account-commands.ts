import type { Config } from '../config/config.js';
import { LOCAL_PROVIDER } from '../core/accounts/account.js';
import { addLocalUser } from '../core/accounts/add-local-user.js';
import { createTokenForUser } from '../core/accounts/create-token-for-user.js';
import { createAccountStores } from '../wiring/accounts.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { shown } from './terminal-text.js';
import { withDatabase } from './with-database.js';

/** `kura user add NAME [--admin]`: creates a local account, or sets its password and role; the password comes on stdin. */
export const userCommand: Command = {
  run: runUserAdd,
};

/** `kura token create USER`: prints a new API token for a local account name or `provider/userId`. */
export const tokenCommand: Command = {
  run: runTokenCreate,
};

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

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}
