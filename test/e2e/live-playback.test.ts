import { spawn } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { probe, SEGMENT_REQUEST, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { e2eEnv } from '../support/serve-env.js';
import { frameHashes } from '../support/long-archive.js';

// Watching a stream while it is recorded, with the api and the worker in processes of their own
// (`kura serve` with KURA_ROLE=api and KURA_ROLE=worker) on one PostgreSQL: ffprobe, as any HLS
// client, reads the live playlist from the first segment while the capture goes on.
let db: TestDatabase;
let cwd: string;
let fixture: HlsFixture;
const processes: KuraProcess[] = [];

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-live-'));
  await chmod(cwd, 0o755);
  fixture = await startHlsFixture({ seconds: 12 });
});
afterEach(async () => {
  for (const kura of processes.splice(0)) {
    kura.child.kill('SIGKILL');
    await kura.exited;
  }
  await fixture.close();
  await db.drop();
});

/** Starts the api and a worker; `dataDir` names each one's data directory. Resolves with the api's URL. */
async function startSplit(dataDir: (role: string) => string, extra: Record<string, string> = {}): Promise<string> {
  const start = (role: 'api' | 'worker') => {
    const kura = spawnKura(['serve'], e2eEnv(db.url, dataDir(role), { KURA_ROLE: role, ...extra }), cwd);
    processes.push(kura);
    return kura;
  };
  const api = (await start('api').waitForLog((l) => l.msg === 'kura api listening')).url as string;
  await start('worker').waitForLog((l) => l.msg === 'kura worker ready');
  return api;
}

async function archive(extra: Record<string, string> = {}): Promise<string> {
  const result = await runKura(['archive', fixture.url], e2eEnv(db.url, path.join(cwd, 'cli'), extra), cwd);
  expect(result.code, result.stderr).toBe(0);
  return /kura: (\S+) is/.exec(result.stdout)?.[1] as string;
}

/** ffprobe's JSON answer; `-live_start_index 0` makes it start a playlist without ENDLIST at its first segment, not 3 from the end. */
function ffprobe(args: string[]): Promise<{ packets?: Array<{ pts_time: string }>; streams?: Array<{ nb_read_packets: string }> }> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffprobe', ['-v', 'error', '-of', 'json', ...args]);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`ffprobe exited ${code}: ${err}`))));
  });
}

/** The video packets' times in the first `seconds` of `input`. */
async function firstVideoPackets(input: string, seconds: number): Promise<number[]> {
  const json = await ffprobe([
    '-live_start_index',
    '0',
    '-select_streams',
    'v:0',
    '-show_entries',
    'packet=pts_time',
    '-read_intervals',
    `%+${seconds}`,
    input,
  ]);
  return (json.packets ?? []).map((p) => Number(p.pts_time));
}

/** Waits until the live playlist answers 200 (the first segments are recorded and readable by the api). */
async function playlistServed(api: string, id: string): Promise<string> {
  await fixture.seen(SEGMENT_REQUEST, 4);
  await expect.poll(async () => (await fetch(`${api}/api/video/${id}/live.m3u8`)).status, { timeout: 20_000 }).toBe(200);
  return `${api}/api/video/${id}/live.m3u8`;
}

describe('the live playlist, with the api and the worker in processes of their own', () => {
  it('on fs (one data directory): ffprobe reads it from the first segment mid-capture; it is gone once the archive is stored', async () => {
    const api = await startSplit(() => path.join(cwd, 'data'));
    const id = await archive();
    const encoded = fixture.start();
    const live = await playlistServed(api, id);

    // mid-capture: from the stream's very first frame, as the source's first segment holds it
    const [sourceStart] = await firstVideoPackets(path.join(fixture.dir, 'live', 'seg00000.ts'), 1);
    const packets = await firstVideoPackets(live, 3);
    expect(packets[0]).toBe(sourceStart);
    expect(packets.length).toBeGreaterThanOrEqual(85); // 3 s at 30 fps, read across segments
    const playlist = await (await fetch(live)).text();
    expect(playlist).toContain('#EXT-X-PLAYLIST-TYPE:EVENT');
    expect(playlist).toContain('#EXT-X-MEDIA-SEQUENCE:0\n');

    // a clip of what is recorded so far: the first 2 s, from the first segment, as the source encoded them
    const clip = await fetch(`${api}/api/download/${id}/clip?start=0.5&end=2`);
    expect(clip.status, await clip.clone().text()).toBe(200);
    expect([clip.headers.get('x-kura-clip-start'), clip.headers.get('x-kura-clip-duration')]).toEqual(['0.000', '2.000']);
    const clipFile = path.join(cwd, 'clip.mp4');
    await writeFile(clipFile, Buffer.from(await clip.arrayBuffer()));
    const source = ['seg00000.ts', 'seg00001.ts'].map((segment) => path.join(fixture.dir, 'live', segment));
    // 61 frames asked of the clip: it holds exactly the 60 of its 2 s, the source's own pictures
    expect(await frameHashes(clipFile, 61)).toEqual(await frameHashes(`concat:${source.join('|')}`, 60));

    await encoded;
    const done = await waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const after = await fetch(live);
    expect(after.status).toBe(410);
    expect(await after.json()).toMatchObject({ code: 'live_ended', detail: expect.stringContaining(`/api/download/${id}/video`) });
    expect((await probe(`${api}/api/download/${id}/video`)).frames).toBe(360);
  }, 90_000);

  describe('on S3', () => {
    let s3: TestS3;
    beforeEach(async () => {
      s3 = await startS3();
    });
    afterEach(() => s3.stop());

    it('(the api on a disk of its own, reading the stored chunks): ffprobe reads every frame from the first segment to ENDLIST', async () => {
      // a chunk every 2 s of media reaches the bucket: what an api without the worker's disk can serve
      const api = await startSplit((role) => path.join(cwd, role), { ...s3.env, KURA_SPOOL_CHUNK_SECONDS: '2' });
      // the archive's upload waits, so the ended capture's playlist (ENDLIST) is there to be read to its end
      const upload = s3.holdWhile((method, requestPath) => requestPath.endsWith('.mp4') && method !== 'GET');
      const id = await archive(s3.env);
      const encoded = fixture.start();
      const live = await playlistServed(api, id);
      const capturing = await (await fetch(live)).text();
      expect(capturing).not.toContain('#EXT-X-ENDLIST');

      const whole = ffprobe(['-live_start_index', '0', '-count_packets', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_packets', live]);
      // the worker's recent frame of the recording, stored in the bucket beside the archive, served by the api
      const frameUrl = `${api}/api/video/${id}/frame.jpg`;
      await expect.poll(async () => (await fetch(frameUrl)).status, { timeout: 20_000 }).toBe(200);
      const frame = await fetch(frameUrl);
      expect(frame.headers.get('content-type')).toBe('image/jpeg');
      expect(Buffer.from(await frame.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      expect(await s3.keys(`archives/${id}/`)).toContain(`archives/${id}/${id}.live.jpg`);
      await encoded;
      await upload.began; // the capture ended: the finalize is storing the archive
      expect((await (await fetch(live)).text()).endsWith('#EXT-X-ENDLIST\n')).toBe(true);
      expect(Number((await whole).streams?.[0]?.nb_read_packets)).toBe(360);

      upload.release();
      const done = await waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');
      expect(done.status, done.failure_reason ?? '').toBe('finished');
      expect((await fetch(live)).status).toBe(410);
      expect((await fetch(frameUrl)).status).toBe(410); // the archive's thumbnail replaced the frame, deleted from the bucket with the chunks
      await expect.poll(() => s3.keys(`archives/${id}/`), { timeout: 10_000 }).not.toContain(`archives/${id}/${id}.live.jpg`);
      const segment = /^live\/\d+\/\d+\.ts$/m.exec(capturing)?.[0] as string;
      expect((await fetch(`${api}/api/video/${id}/${segment}`)).status).toBe(410); // the archive replaced the segments
    }, 90_000);
  });
});
