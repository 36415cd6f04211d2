import { randomBytes } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';

/** A finished HLS stream of 5 one-second segments whose packets are noise: a 0x47 sync byte, then random bytes. */
async function writeNoiseStream(liveDir: string): Promise<void> {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:0'];
  for (let i = 0; i < 5; i++) {
    const packets = randomBytes(188 * 500);
    for (let p = 0; p < 500; p++) packets[p * 188] = 0x47;
    await writeFile(path.join(liveDir, `seg${String(i).padStart(5, '0')}.ts`), packets);
    lines.push('#EXTINF:1.000000,', `seg${String(i).padStart(5, '0')}.ts`);
  }
  await writeFile(path.join(liveDir, 'index.m3u8'), [...lines, '#EXT-X-ENDLIST', ''].join('\n'));
}

describe('a stream of noise', () => {
  const h = useCaptureHarness();

  it('ends failed with the reason soon after it ends, not finished and not stuck, and keeps what was captured', async () => {
    const started = Date.now();
    const { api, id, done, details } = await h.archiveWritten(writeNoiseStream);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/^The recording holds no playable audio or video: part 1 of 1 has no stream ffmpeg can read/);
    expect(Date.now() - started).toBeLessThan(10 * 60_000);
    expect(details).toMatchObject({ status: 'failed', finished: false, failureReason: done.failure_reason });
    expect(details.capture.parts).toEqual([expect.objectContaining({ segments: 5, bytes: 5 * 188 * 500 })]);
    // the captured bytes are still in the store, for an admin's retry or a look at them
    const { rows } = await h.db.pool.query<{ object_key: string; end_offset: string }>(
      'select object_key, end_offset from capture_chunks where livestream_id = $1',
      [id],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const chunk of rows) expect((await stat(path.join(h.dataDir, 'archive', chunk.object_key))).size).toBeGreaterThan(0);
    expect((await fetch(`${api}/api/download/${id}/video`)).status).toBe(409);
  });
});
