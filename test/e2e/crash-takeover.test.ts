import { describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import { SEGMENT_REQUEST, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';

// A crash costs seconds, not a lease's stale time (issue 49, decision 0092): `kura serve` killed
// (SIGKILL) during six live captures whose playlists keep 12 s, then started again at once. The
// lease's stale time is the default 30 s here: only the dead worker's ended database session
// tells the new one to take its captures back.
const h = useCaptureHarness();
const CAPTURES = 6;
const STALE = { KURA_CAPTURE_STALE_SECONDS: '30', KURA_MAX_CAPTURES: String(CAPTURES) };

describe('a worker killed during live captures', () => {
  it('started again, takes every capture back within 5 s of its start, and misses no segment', async () => {
    const fixtures: HlsFixture[] = [];
    try {
      for (let i = 0; i < CAPTURES; i++) fixtures.push(await startHlsFixture({ seconds: 24, listSize: 12, size: '160x90', fps: 10 }));
      await h.serve(STALE);
      const ids: string[] = [];
      for (const fixture of fixtures) ids.push(await h.archive(fixture.url));
      const encoded = Promise.all(fixtures.map((fixture) => fixture.start()));
      await Promise.all(fixtures.map((fixture) => fixture.seen(SEGMENT_REQUEST, 4)));
      h.kura!.child.kill('SIGKILL');
      await h.kura!.exited;

      const restarted = new Date();
      const serving = h.serve(STALE);
      // awaited below; if a check fails first, the harness's stop ends this start, and that is not a second failure
      serving.catch(() => undefined);
      // each capture is held again (a lease renewed by the new worker) within 5 s of the restart,
      // whether or not the api listens yet (the worker does not wait for it: decision 0096)
      const heldAgain = async () =>
        (
          await h.db.pool.query(
            `select count(*)::int as n from captures where livestream_id = any($1) and state = 'capturing' and heartbeat_at >= $2 and worker_id is not null`,
            [ids, restarted],
          )
        ).rows[0].n;
      await expect.poll(heldAgain, { timeout: 5000 - (Date.now() - restarted.getTime()), interval: 100 }).toBe(CAPTURES);
      const tookBack = Date.now() - restarted.getTime();
      expect(tookBack).toBeLessThan(5000);
      await serving;

      await encoded;
      for (const id of ids) {
        const done = await h.settled(id);
        expect(done.status, done.failure_reason ?? '').toBe('finished');
        const gaps = await h.db.pool.query(`select first_sequence from capture_gaps where livestream_id = $1`, [id]);
        expect(gaps.rows, id).toEqual([]);
      }
    } finally {
      await Promise.all(fixtures.map((fixture) => fixture.close()));
    }
  }, 240_000);
});
