import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let cwd: string;
let db: TestDatabase;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-webhook-cli-'));
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const env = () => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });

describe('kura webhook', () => {
  it('add prints the id and the secret once, list shows it (never the secret), remove removes it', async () => {
    const added = await runKura(
      ['webhook', 'add', 'https://hooks.example.com/kura', '--events', 'livestream.finished, follow.unhealthy', '--channel', 'UCkaraoke'],
      env(),
      cwd,
    );
    expect(added.code, added.stderr).toBe(0);
    const [, id] = /^id: (\S+)$/m.exec(added.stdout) ?? [];
    const [, secret] = /^secret: (whsec_\S+)$/m.exec(added.stdout) ?? [];
    expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    // the printed secret is the one deliveries are signed with: a signature made with it verifies
    const { rows } = await db.pool.query('select secret, events, channel_id, created_by from webhooks where id = $1', [id]);
    expect(rows[0]).toMatchObject({
      secret,
      events: ['livestream.finished', 'follow.unhealthy'],
      channel_id: 'UCkaraoke',
      created_by: expect.stringMatching(/^cli\//),
    });
    const signer = new Webhook(secret as string);
    const at = new Date();
    const headers = { 'webhook-id': 'e1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign('e1', at, '{}') };
    expect(new Webhook(secret as string).verify('{}', headers)).toEqual({});

    const listed = await runKura(['webhook', 'list'], env(), cwd);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual([
      ['id', 'state', 'events', 'channel', 'url'].join('\t'),
      [id, 'ok', 'livestream.finished,follow.unhealthy', 'UCkaraoke', 'https://hooks.example.com/kura'].join('\t'),
    ]);
    expect(listed.stdout).not.toContain('whsec_');

    const removed = await runKura(['webhook', 'remove', id as string], env(), cwd);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`webhook ${id} removed`);
    expect((await runKura(['webhook', 'list'], env(), cwd)).stdout).toBe('none\n');
    expect((await runKura(['webhook', 'list', '--json'], env(), cwd)).stdout).toBe('[]\n');
    const again = await runKura(['webhook', 'remove', id as string], env(), cwd);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`There is no webhook ${id}.`);
  });

  it('refuses a bad URL, a private target and an unknown event type (exit 1, with the reason), and bad usage (exit 2)', async () => {
    const notUrl = await runKura(['webhook', 'add', 'not a url'], env(), cwd);
    expect(notUrl.code).toBe(1);
    expect(notUrl.stderr).toContain('not a url is not a URL.');
    const ftp = await runKura(['webhook', 'add', 'ftp://hooks.example.com/kura'], env(), cwd);
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toContain('A webhook URL is http or https, not ftp:');
    const loopback = await runKura(['webhook', 'add', 'http://127.0.0.1:9/hook'], env(), cwd);
    expect(loopback.code).toBe(1);
    expect(loopback.stderr).toContain('127.0.0.1 is a loopback address');
    const unknown = await runKura(['webhook', 'add', 'https://hooks.example.com/kura', '--events', 'livestream.exploded'], env(), cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown event types: livestream.exploded.');
    expect((await db.pool.query('select count(*)::int as n from webhooks')).rows[0].n).toBe(0);
    const usage = await runKura(['webhook', 'add'], env(), cwd);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('webhook add URL');
  });
});
