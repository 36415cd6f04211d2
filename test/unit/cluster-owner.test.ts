import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../../src/adapters/db/connection-loss.js';
import { isOwnerAlive, readOwner, releaseOwner, thisProcess, writeOwner } from '../../src/adapters/embedded-postgres/cluster-owner.js';
import { AppError } from '../../src/core/errors.js';

describe('the owner of the embedded PostgreSQL', () => {
  it('is alive only as the very process it names: a pid reused by another process, or a gone one, names nobody', async () => {
    const parent = { pid: process.ppid, startTime: null, role: 'serve' as const };
    expect(await isOwnerAlive(parent)).toBe(true);
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-owner-')), 'postgres');
    await writeOwner(dir, parent);
    expect(await readOwner(dir)).toEqual({ pid: process.ppid, startTime: null, role: 'serve' });
    expect(await isOwnerAlive({ ...parent, startTime: '1' })).toBe(false); // same pid, another start: reused
    expect(await isOwnerAlive({ pid: 2 ** 22 + 1, startTime: null, role: 'serve' })).toBe(false);
    expect(await isOwnerAlive(await thisProcess('serve'))).toBe(false); // a process is never its own live owner
  });

  it('is released only by the process the file still names', async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-owner-')), 'postgres');
    const me = await thisProcess('command');
    expect(me.startTime).toMatch(/^\d+$/);
    await writeOwner(dir, { pid: process.ppid, startTime: null, role: 'serve' }); // a server took over
    expect(await releaseOwner(dir, me)).toBe(false);
    await writeOwner(dir, me);
    expect(await releaseOwner(dir, me)).toBe(true);
    expect(await readOwner(dir)).toBeNull();
  });
});

describe('a lost database connection', () => {
  it('is told apart from a query PostgreSQL refused', () => {
    const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
    expect(isConnectionLoss(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isConnectionLoss(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isConnectionLoss(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLoss(new AppError('unavailable', 'database_unavailable', 'x'))).toBe(true);
    expect(isConnectionLoss(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isConnectionLoss(withCode('invalid input syntax for type bigint', '22P02'))).toBe(false);
    expect(isConnectionLoss(new AppError('unavailable', 'search_unavailable', 'x'))).toBe(false);
  });
});
