import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildRecord, buildRecords } from '../support/factories.js';

let kura: TestApp;
beforeEach(async () => {
  kura = await startTestApp({ usdPerGbPerMonth: 0.015 });
});
afterEach(() => kura.close());

const stats = async () => {
  const response = await kura.app.inject({ url: '/api/stats' });
  expect(response.statusCode).toBe(200);
  return response.json();
};

describe('GET /api/stats', () => {
  it('answers zeros on an empty database', async () => {
    expect(await stats()).toEqual({
      videoAmount: 0,
      totalFileSize: 0,
      totalLength: 0,
      storageBillPerMonth: 0,
      s3BillPerMonth: 0,
      usdPerGbPerMonth: 0.015,
      uniqueChannels: 0,
    });
  });

  it('sums archived and queued records, leaves failed ones out, and bills size / 10^9 × price', async () => {
    const archived = buildRecords(40, { unfinishedEvery: 4 }); // 10 upcoming, 30 finished
    const failed = buildRecord({ id: 'failed-1', finished: false, status: 'failed', fileSizeBytes: 5e9, length: 100, channelId: 'UC-only-failed' }, 1000);
    await kura.load([...archived, failed]);
    const finished = archived.filter((r) => r.finished);
    const size = finished.reduce((sum, r) => sum + (r.fileSizeBytes ?? 0), 0);
    const length = finished.reduce((sum, r) => sum + (r.length ?? 0), 0);
    const channels = new Set(archived.map((r) => r.channelId)).size;
    const got = await stats();
    expect(got).toEqual({
      videoAmount: 40,
      totalFileSize: size,
      totalLength: length,
      storageBillPerMonth: (size / 1e9) * 0.015,
      s3BillPerMonth: (size / 1e9) * 0.015,
      usdPerGbPerMonth: 0.015,
      uniqueChannels: channels,
    });
    expect(Number.isInteger(got.totalFileSize)).toBe(true);
  });

  it('keeps unique channels right as records move between channels, fail and are re-imported', async () => {
    await kura.load([buildRecord({ id: 'a', channelId: 'UC-one' }), buildRecord({ id: 'b', channelId: 'UC-one' })]);
    expect((await stats()).uniqueChannels).toBe(1);
    await kura.load([buildRecord({ id: 'b', channelId: 'UC-two' })]);
    expect((await stats()).uniqueChannels).toBe(2);
    await kura.load([buildRecord({ id: 'a', channelId: 'UC-two' })]);
    expect((await stats()).uniqueChannels).toBe(1);
    await kura.load([
      buildRecord({ id: 'a', channelId: 'UC-two', finished: false, status: 'failed' }),
      buildRecord({ id: 'b', channelId: 'UC-two', finished: false, status: 'failed' }),
    ]);
    expect(await stats()).toMatchObject({ uniqueChannels: 0, videoAmount: 0, totalFileSize: 0 });
    await kura.load([buildRecord({ id: 'b', channelId: 'UC-two' })]);
    expect(await stats()).toMatchObject({ uniqueChannels: 1, videoAmount: 1 });
  });

  it('matches a full recount after a large mixed import (the aggregates never drift)', async () => {
    await kura.load(buildRecords(3000, { unfinishedEvery: 7 }));
    await kura.load(buildRecords(500, { offset: 2800, unfinishedEvery: 3 })); // 200 updates, 300 inserts
    const { rows } = await kura.db.pool.query(`
      select count(*) filter (where status <> 'failed')::int as counted,
             coalesce(sum(file_size_bytes) filter (where status <> 'failed'), 0)::bigint as size,
             coalesce(sum(length_seconds) filter (where status <> 'failed'), 0)::bigint as length,
             count(distinct channel_id) filter (where status <> 'failed' and channel_id <> '')::int as channels
      from livestreams`);
    const recount = rows[0];
    expect(await stats()).toMatchObject({
      videoAmount: recount.counted,
      totalFileSize: recount.size,
      totalLength: recount.length,
      uniqueChannels: recount.channels,
    });
  });

  it('is read from the maintained aggregate row, not by scanning records', async () => {
    await kura.load(buildRecords(20));
    // the aggregate is the source of truth: change it behind the records' back and stats follow it
    const changed = kura.nextChange();
    await kura.db.pool.query(`update livestream_totals set counted_count = 424242; notify kura_livestreams_changed`);
    await changed;
    expect((await stats()).videoAmount).toBe(424242);
  });
});
