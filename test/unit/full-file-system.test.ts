import { writeFile } from 'node:fs/promises';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProblemHandling } from '../../src/http/problem-handling.js';

// The file system's full disk, as the kernel reports it: every write to /dev/full fails with
// ENOSPC. No route of Kura's writes files today, so a route of the test's own writes there, on
// Kura's real error handling: what any route that writes a file would meet on a full disk.
const app = Fastify({ logger: false });

beforeAll(async () => {
  installProblemHandling(app);
  app.post('/write', async () => {
    await writeFile('/dev/full', 'a chunk');
    return { written: true };
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
});

describe('a write to a full file system', () => {
  it('is answered 503 storage_full with the reason and Retry-After, not 500', async () => {
    const response = await app.inject({ method: 'POST', url: '/write' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('60');
    expect(response.json()).toMatchObject({
      code: 'storage_full',
      detail: 'The disk Kura writes to is full: this change cannot be stored now. Try again once the operator has freed space.',
    });
  });
});
