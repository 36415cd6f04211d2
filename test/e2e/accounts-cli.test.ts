import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScryptPasswords } from '../../src/adapters/auth/scrypt-passwords.js';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// `kura user add` and `kura token create`, run as the built command (dist/), with stdin.
let cwd: string;
let db: TestDatabase;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-cli-accounts-'));
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const kura = (args: string[], stdin?: string) => runKura(args, { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, cwd, stdin);

describe('kura user and token commands', () => {
  it('user add reads the password from stdin and stores only its scrypt hash; --admin makes an admin', async () => {
    const added = await kura(['user', 'add', 'root', '--admin'], 'a long passphrase\n');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('local/root');
    const { rows } = await db.pool.query(`select role, password_hash from users where provider = 'local' and provider_user_id = 'root'`);
    expect(rows[0].role).toBe('admin');
    expect(rows[0].password_hash).not.toContain('a long passphrase');
    expect(await createScryptPasswords().verify('a long passphrase', rows[0].password_hash)).toBe(true); // the newline is not part of it
  });

  it('user add refuses a short password, and a bad usage exits 2', async () => {
    const short = await kura(['user', 'add', 'shorty'], 'abc\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('8 to 1024 characters');
    expect((await kura(['user', 'remove', 'x'])).code).toBe(2);
  });

  it('token create prints a token for a known user, stored hashed; an unknown user is refused', async () => {
    expect((await kura(['user', 'add', 'scripter'], 'scripter passphrase\n')).code).toBe(0);
    const created = await kura(['token', 'create', 'scripter']);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^kura_[A-Za-z0-9_-]{43}$/);
    const { rows } = await db.pool.query(`select count(*)::int as n from api_tokens where token_hash = sha256(convert_to($1, 'utf8'))`, [token]);
    expect(rows[0].n).toBe(1);
    const unknown = await kura(['token', 'create', 'discord/404']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('There is no user discord/404');
  });
});
