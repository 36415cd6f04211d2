import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let cwd: string;
let db: TestDatabase;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-follow-cli-'));
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const env = () => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });

describe('kura follow', () => {
  it('add prints the id alone, list shows it under a header with its health, pause/resume and remove change it', async () => {
    const added = await runKura(
      ['follow', 'add', 'https://live.example.org/live/index.m3u8', '--channel', 'Karaoke Night', '--quality', '720p'],
      { ...env(), LOG_LEVEL: 'debug' },
      cwd,
    );
    expect(added.code, added.stderr).toBe(0);
    const id = added.stdout.trim();
    expect(added.stdout).toBe(`${id}\n`); // what `ID=$(kura follow add …)` takes
    expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    const { rows } = await db.pool.query('select channel_id, quality, created_by from follows where id = $1', [id]);
    expect(rows[0]).toMatchObject({ channel_id: 'karaoke-night', quality: '720p', created_by: expect.stringMatching(/^cli\//) });

    const listed = await runKura(['follow', 'list'], env(), cwd);
    expect(listed.stdout.trim().split('\n')).toEqual([
      ['id', 'kind', 'health', 'queued', 'channel', 'url'].join('\t'),
      [id, 'hls_endpoint', 'ok', '0', 'Karaoke Night', 'https://live.example.org/live/index.m3u8'].join('\t'),
    ]);
    const json = await runKura(['follow', 'list', '--json'], env(), cwd);
    expect(JSON.parse(json.stdout)).toEqual([
      { id, kind: 'hls_endpoint', health: 'ok', queued: 0, channel: 'Karaoke Night', url: 'https://live.example.org/live/index.m3u8' },
    ]);
    const kept = await runKura(['follow', 'retention', id, '--keep-last', '5', '--max-gb', '1.5'], env(), cwd);
    expect(kept.stdout).toBe(`kura: ${id} keeps: keep the last 5, at most 1.5 GB\n`);
    const cleared = await runKura(['follow', 'retention', id, '--keep-last', 'none'], env(), cwd);
    expect(cleared.stdout).toBe(`kura: ${id} keeps: keep at most 1.5 GB\n`);
    expect((await runKura(['follow', 'retention', id, '--keep-last', 'lots'], env(), cwd)).code).toBe(2);
    const paused = await runKura(['follow', 'pause', id], env(), cwd);
    expect(paused.code, paused.stderr).toBe(0);
    expect((await runKura(['follow', 'list'], env(), cwd)).stdout).toContain('\tpaused\t');
    const resumed = await runKura(['follow', 'resume', id], env(), cwd);
    expect(resumed.code, resumed.stderr).toBe(0);

    const again = await runKura(['follow', 'add', 'https://live.example.org/live/index.m3u8'], env(), cwd);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is followed already');

    expect((await runKura(['follow', 'remove', id], env(), cwd)).code).toBe(0);
    expect((await runKura(['follow', 'list'], env(), cwd)).stdout).toBe('none\n');
    expect((await runKura(['follow', 'list', '--json'], env(), cwd)).stdout).toBe('[]\n');
    const unknown = await runKura(['follow', 'remove', id], env(), cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`No follow has the id "${id}"`);
  });

  it('pauses, resumes and removes a follow whose id begins with "-", as an argument like any other', async () => {
    const added = await runKura(['follow', 'add', 'https://live.example.org/dash/index.m3u8'], env(), cwd);
    expect(added.code, added.stderr).toBe(0);
    // minted before ids were kept from beginning with "-" (1 in 64 did)
    const id = '-Jdash0id012';
    await db.pool.query('update follows set id = $1 where id = $2', [id, added.stdout.trim()]);
    const paused = await runKura(['follow', 'pause', id], env(), cwd);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout.trim()).toBe(`kura: ${id} is paused`);
    expect((await db.pool.query('select paused from follows where id = $1', [id])).rows).toEqual([{ paused: true }]);
    const resumed = await runKura(['follow', 'resume', '--', id], env(), cwd);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await db.pool.query('select paused from follows where id = $1', [id])).rows).toEqual([{ paused: false }]);
    const removed = await runKura(['follow', 'remove', id], env(), cwd);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await db.pool.query('select count(*)::int as n from follows')).rows).toEqual([{ n: 0 }]);
  });

  it('prints names and ids with their control characters escaped: nothing a channel name holds acts on the terminal', async () => {
    // ESC (a title-setting OSC sequence), BEL, CR and RIGHT-TO-LEFT OVERRIDE: an admin's name is
    // kept as submissions keep theirs (controls a space, the override removed)...
    const name = 'Evil\u001b]0;owned\u0007\rName\u202e';
    const added = await runKura(['follow', 'add', 'https://live.example.org/evil/index.m3u8', '--channel', name], env(), cwd);
    expect(added.code, added.stderr).toBe(0);
    expect((await db.pool.query('select channel_name from follows')).rows).toEqual([{ channel_name: 'Evil ]0;owned Name' }]);
    // ...while a channel's name as YouTube gives it (through yt-dlp) is stored as it comes
    await db.pool.query('update follows set channel_name = $1', [name]);
    const listed = await runKura(['follow', 'list'], env(), cwd);
    expect(listed.stdout.trim().split('\n')[1]?.split('\t').slice(4)).toEqual([
      'Evil\\u001b]0;owned\\u0007\\rName\\u202e',
      'https://live.example.org/evil/index.m3u8',
    ]);
    // as JSON: the name whole once parsed, nothing raw on the terminal
    const json = await runKura(['follow', 'list', '--json'], env(), cwd);
    expect(JSON.parse(json.stdout)[0].channel).toBe(name);
    const unknown = await runKura(['follow', 'pause', 'x\u001b[2J\u0007'], env(), cwd);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No follow has the id "x\\u001b[2J\\u0007"');
    // eslint-disable-next-line no-control-regex -- the control characters are what must be absent
    for (const output of [listed.stdout, json.stdout, unknown.stderr]) expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
  });

  it('refuses a bad rule (exit 1, with the reason) and bad usage (exit 2)', async () => {
    const bad = await runKura(['follow', 'add', 'https://live.example.org/a.m3u8', '--title-include', '(open'], env(), cwd);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('titleInclude is not a valid regular expression');
    const usage = await runKura(['follow', 'frob'], env(), cwd);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('follow add URL');
  });
});
