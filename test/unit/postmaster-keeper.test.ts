import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { keepPostgres, type Postmaster } from '../../src/adapters/embedded-postgres/postmaster-keeper.js';

// The keeper's two ways of noticing a postmaster is gone, with real processes standing in for it
// (`sleep`): a child of this process says when it exits; one taken over from a CLI command is not
// our child, and is looked at every second. A real PostgreSQL killed under `kura serve`: e2e/serve.test.ts.
function standIn(options: { ours: boolean }): Postmaster {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  const exited = once(child, 'exit').then(() => undefined);
  return { pid: child.pid as number, port: 5432, ...(options.ours ? { exited } : {}), stop: async () => void child.kill() };
}

function keep(first: Postmaster) {
  const started: Postmaster[] = [];
  let startedAgain: (postmaster: Postmaster) => void = () => undefined;
  const keeper = keepPostgres({
    first,
    start: async () => {
      const next = standIn({ ours: true });
      started.push(next);
      startedAgain(next);
      return next;
    },
    stillOurs: async () => true,
    log: () => undefined,
    onLost: (error) => expect.fail(error.message),
  });
  const nextStart = () => new Promise<Postmaster>((resolve) => (startedAgain = resolve));
  return { keeper, started, nextStart };
}

describe('the embedded PostgreSQL keeper', () => {
  it('starts a postmaster it started again as soon as it exits, and the next one too', async () => {
    const first = standIn({ ours: true });
    const { keeper, nextStart } = keep(first);
    try {
      const killedAt = Date.now();
      const second = nextStart();
      process.kill(first.pid, 'SIGKILL');
      const again = await second;
      expect(Date.now() - killedAt).toBeLessThan(500); // told by its exit, not found by a look
      const third = nextStart();
      process.kill(again.pid, 'SIGKILL');
      await third;
    } finally {
      await keeper.stop().stop();
    }
  });

  it('finds a postmaster it took over gone within about a second, and starts it again', async () => {
    const first = standIn({ ours: false });
    const { keeper, nextStart } = keep(first);
    try {
      const killedAt = Date.now();
      const again = nextStart();
      process.kill(first.pid, 'SIGKILL');
      await again;
      expect(Date.now() - killedAt).toBeLessThan(2500);
    } finally {
      await keeper.stop().stop();
    }
  });

  it('starts nothing once stopped: the caller shuts the postmaster down', async () => {
    const first = standIn({ ours: true });
    const { keeper, started } = keep(first);
    const current = keeper.stop();
    expect(current).toBe(first);
    await current.stop();
    await first.exited;
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([]);
  });
});
