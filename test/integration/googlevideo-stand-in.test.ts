import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGooglevideo, type Googlevideo } from '../support/googlevideo-stand-in.js';
import { googlevideoSig } from '../support/googlevideo-url.mjs';
import { fragmentBytes, makeFragments, type FragmentMaterial } from '../support/youtube-fragments.js';

// The googlevideo STAND-IN (research §5.1) answers as YouTube's fragment server does for what
// yt-dlp's live-from-start and ytarchive ask: fragments by sq up to the head, X-Head-Seqnum on each
// answer, 403 for a dead or forged URL, 404 past the head and for a lost fragment.

let googlevideo: Googlevideo;
let material: FragmentMaterial; // 10 s of 1-s fragments: sq 0 … 9
let videoId: string;
let next = 0;

beforeAll(async () => {
  material = await makeFragments({ codecs: 'h264', seconds: 10, targetSeconds: 1 });
  googlevideo = await startGooglevideo();
});
afterAll(() => googlevideo.close());
afterEach(() => {
  googlevideo.aheadOfHead = 'hold';
});
const onAir = (options: { startedSecondsAgo?: number; expireInSeconds?: number } = {}, broadcastMaterial = material): string => {
  videoId = `gvStandIn${String(next++).padStart(2, '0')}`;
  googlevideo.broadcast(videoId, { material: broadcastMaterial, ...options });
  return videoId;
};
const VIDEO = 133;
const AUDIO = 140;
const fragment = (itag: number, sq: number, method = 'GET') => fetch(`${googlevideo.baseUrl(videoId, itag)}&sq=${sq}`, { method });
const headProbe = (itag = VIDEO, method = 'HEAD') => fetch(googlevideo.baseUrl(videoId, itag), { method });
const headSeqnum = (response: Response) => Number(response.headers.get('x-head-seqnum'));

describe('the head', () => {
  it('is announced by the bare base URL (HEAD or GET, empty body), and grows one fragment a target', async () => {
    onAir();
    const probe = await headProbe();
    expect(probe.status).toBe(200);
    const head = headSeqnum(probe);
    expect(head).toBeLessThanOrEqual(1);
    const get = await headProbe(VIDEO, 'GET');
    expect(get.status).toBe(200);
    expect((await get.arrayBuffer()).byteLength).toBe(0);
    // sq head+1 is held until it is made (hang=1), then served with the head that it now is
    const ahead = await fragment(VIDEO, head + 1);
    expect(ahead.status).toBe(200);
    expect(headSeqnum(ahead)).toBeGreaterThanOrEqual(head + 1);
    expect(headSeqnum(await headProbe())).toBeGreaterThan(head);
  });

  it('is already far on for a broadcast that began ten minutes ago, whose first fragment is still served', async () => {
    const long = await makeFragments({ codecs: 'h264', seconds: 620, targetSeconds: 5, fps: 5 });
    onAir({ startedSecondsAgo: 600 }, long);
    const head = headSeqnum(await headProbe(AUDIO));
    expect(head).toBe(120);
    const first = await fragment(AUDIO, 0);
    expect(first.status).toBe(200);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(await fragmentBytes(long.representations[2]!, 0));
  });

  it('answers 404 beyond head+1 at once, and for head+1 too when switched to not-found', async () => {
    onAir({ startedSecondsAgo: 3 });
    const head = headSeqnum(await headProbe());
    expect((await fragment(VIDEO, head + 2)).status).toBe(404);
    googlevideo.aheadOfHead = 'not-found';
    const ahead = await fragment(VIDEO, head + 1);
    expect(ahead.status).toBe(404);
    expect(headSeqnum(ahead)).toBe(head);
  });
});

describe('a fragment', () => {
  it('is the bytes of init ‖ chunk, typed by its mime, with the head headers googlevideo sends', async () => {
    onAir({ startedSecondsAgo: 5 });
    for (const [index, itag] of [160, 133, 140].entries()) {
      const response = await fragment(itag, 3);
      const body = Buffer.from(await response.arrayBuffer());
      expect(response.status).toBe(200);
      expect(body).toEqual(await fragmentBytes(material.representations[index]!, 3));
      expect(response.headers.get('content-type')).toBe(index === 2 ? 'audio/mp4' : 'video/mp4');
      expect(Number(response.headers.get('content-length'))).toBe(body.length);
      expect(response.headers.get('x-sequence-num')).toBe('3');
      expect(headSeqnum(response)).toBe(5);
      expect(response.headers.get('x-head-time-sec')).toBe('5');
      expect(response.headers.get('access-control-expose-headers')).toContain('X-Head-Seqnum');
    }
  });

  it('is 404 every time once lost, for its itag only or for all', async () => {
    onAir({ startedSecondsAgo: 5 });
    googlevideo.lose(videoId, 2, VIDEO);
    googlevideo.lose(videoId, 4);
    expect([(await fragment(VIDEO, 2)).status, (await fragment(VIDEO, 2)).status]).toEqual([404, 404]);
    expect((await fragment(AUDIO, 2)).status).toBe(200);
    expect([(await fragment(VIDEO, 4)).status, (await fragment(AUDIO, 4)).status]).toEqual([404, 404]);
    expect((await fragment(VIDEO, 3)).status).toBe(200);
  });

  it('is 404 for an itag or a video not on air', async () => {
    onAir();
    const { sigSecret } = googlevideo.stateFor(videoId);
    const url = new URL(googlevideo.baseUrl(videoId, VIDEO));
    url.searchParams.set('itag', '137');
    url.searchParams.set('sig', googlevideoSig(sigSecret, videoId, 137, url.searchParams.get('expire')!));
    expect((await fetch(`${url}&sq=0`)).status).toBe(404);
    url.searchParams.set('id', 'notOnAir000.1');
    url.searchParams.set('sig', googlevideoSig(sigSecret, 'notOnAir000', 137, url.searchParams.get('expire')!));
    expect((await fetch(`${url}&sq=0`)).status).toBe(404);
  });
});

describe('a URL', () => {
  it('is refused (403, no X-Head-Seqnum) once expired, for GET and HEAD', async () => {
    onAir({ startedSecondsAgo: 5, expireInSeconds: 0 });
    for (const response of [await fragment(VIDEO, 0), await fragment(VIDEO, 0, 'HEAD'), await headProbe(), await headProbe(VIDEO, 'GET')]) {
      expect(response.status).toBe(403);
      expect(response.headers.get('x-head-seqnum')).toBeNull();
    }
  });

  it('is refused (403) when its sig does not match what it names, for GET and HEAD', async () => {
    onAir({ startedSecondsAgo: 5 });
    const base = googlevideo.baseUrl(videoId, VIDEO);
    expect((await fetch(`${base}&sq=0`)).status).toBe(200);
    const forged = base.replace(/sig=([0-9a-f])/, (_match, first: string) => `sig=${first === '0' ? '1' : '0'}`);
    const otherItag = base.replace('itag=133', 'itag=160');
    for (const url of [forged, otherItag]) {
      for (const method of ['GET', 'HEAD']) {
        const response = await fetch(`${url}&sq=0`, { method });
        expect(response.status).toBe(403);
        expect(response.headers.get('x-head-seqnum')).toBeNull();
      }
    }
  });

  it('minted again comes with a fresh expire (how clients recover from a 403)', () => {
    onAir({ expireInSeconds: 60 });
    const expire = Number(new URL(googlevideo.baseUrl(videoId, VIDEO)).searchParams.get('expire'));
    expect(Math.abs(expire - (Date.now() / 1000 + 60))).toBeLessThan(2);
  });
});

describe('the end of a broadcast', () => {
  it('freezes the head when ended: past it is 404 at once and for good, up to it is still served', async () => {
    onAir({ startedSecondsAgo: 4 });
    googlevideo.end(videoId);
    const head = headSeqnum(await headProbe());
    expect(head).toBe(4);
    expect((await fragment(VIDEO, head + 1)).status).toBe(404);
    expect((await fragment(VIDEO, head)).status).toBe(200);
    expect(headSeqnum(await fragment(VIDEO, 0))).toBe(4);
  });

  it('answers a request held for the next fragment at once, with 404', async () => {
    onAir({}, await makeFragments({ codecs: 'h264', seconds: 10, targetSeconds: 5 }));
    googlevideo.fault = () => {
      googlevideo.end(videoId); // once the request is in: it is held for sq 1, made only 5 s after the start
      return null;
    };
    try {
      const held = await fragment(VIDEO, 1);
      expect(held.status).toBe(404);
      expect(headSeqnum(held)).toBe(0);
    } finally {
      googlevideo.fault = null;
    }
  });

  it('comes by itself when the head reaches the material’s last fragment', async () => {
    onAir({ startedSecondsAgo: 100 });
    const head = headSeqnum(await headProbe());
    expect(head).toBe(material.fragmentCount - 1);
    expect((await fragment(VIDEO, head)).status).toBe(200);
    expect((await fragment(VIDEO, head + 1)).status).toBe(404);
  });
});

it('records every answer, and tells when a number of them have come', async () => {
  onAir({ startedSecondsAgo: 5 });
  const audio = googlevideo.seen((r) => r.videoId === videoId && r.itag === AUDIO && r.sq !== null && r.status === 200, 2);
  await fragment(AUDIO, 0);
  await headProbe(AUDIO);
  await fragment(AUDIO, 1);
  await audio;
  expect(googlevideo.requests.filter((r) => r.videoId === videoId)).toEqual([
    { method: 'GET', videoId, itag: AUDIO, sq: 0, status: 200 },
    { method: 'HEAD', videoId, itag: AUDIO, sq: null, status: 200 },
    { method: 'GET', videoId, itag: AUDIO, sq: 1, status: 200 },
  ]);
});

it('answers the faults a test switches on instead: a status, an empty 200, a dropped connection', async () => {
  onAir({ startedSecondsAgo: 5 });
  const faults = [503, 'empty', 'reset'] as const;
  let next = 0;
  googlevideo.fault = ({ sq }) => (sq === 1 ? (faults[next++] ?? null) : null);
  try {
    expect((await fragment(VIDEO, 1)).status).toBe(503);
    const empty = await fragment(VIDEO, 1);
    expect([empty.status, (await empty.arrayBuffer()).byteLength]).toEqual([200, 0]);
    await expect(fragment(VIDEO, 1)).rejects.toThrow();
    expect((await fragment(VIDEO, 1)).status).toBe(200);
  } finally {
    googlevideo.fault = null;
  }
});
