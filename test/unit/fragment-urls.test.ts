import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FragmentUrls } from '../../src/adapters/capture/fragment-urls.js';
import type { Renewal } from '../../src/core/capture/ports.js';
import type { FragmentedStream, FragmentFormat } from '../../src/core/sources/ports.js';

// The fragment URLs' renewal on its own, on a fake clock: URLs are renewed unasked before their
// `expire` (YouTube's last about 6 h), and a renewal is shared by every fetch that needs one.
const HOUR_S = 3600;

function streamExpiringIn(seconds: number): FragmentedStream {
  const expire = Math.floor(Date.now() / 1000) + seconds;
  const format = (id: string): FragmentFormat => ({
    id,
    url: `https://rr1.googlevideo.com/videoplayback?expire=${expire}&itag=${id}`,
    mime: 'video/mp4',
    codec: 'avc1.4d401f',
    width: null,
    height: null,
    fps: null,
    bitrate: 1,
  });
  return { video: format('137'), audio: format('140'), fragmentSeconds: 1, offered: [] };
}

function urlsFor(ask: () => Promise<Renewal>): FragmentUrls {
  const timing = { renewEveryMs: 0, renewMaxBackoffMs: 0 };
  return new FragmentUrls(streamExpiringIn(6 * HOUR_S), ask, timing, async () => undefined, new AbortController().signal);
}

describe('fragment URLs', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-11-29T12:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are due for renewal once four fifths of their life is spent, not before', () => {
    const urls = urlsFor(async () => ({ state: 'unknown', reason: 'not asked' }));
    vi.advanceTimersByTime(4.7 * HOUR_S * 1000);
    expect(urls.expiring).toBe(false);
    vi.advanceTimersByTime(0.2 * HOUR_S * 1000);
    expect(urls.expiring).toBe(true);
  });

  it('renewed, are counted from their new life', async () => {
    const urls = urlsFor(async () => ({ state: 'live', stream: streamExpiringIn(6 * HOUR_S) }));
    vi.advanceTimersByTime(5 * HOUR_S * 1000);
    expect(await urls.renewFor(urls.version, 'they expire soon')).toMatchObject({ state: 'live' });
    expect(urls.version).toBe(1);
    expect(urls.expiring).toBe(false);
  });

  it('met expired by several fetches at once, are renewed once for them all; a fetch that began before the renewal does not ask again', async () => {
    let asked = 0;
    const urls = urlsFor(async () => {
      asked++;
      return { state: 'live', stream: streamExpiringIn(6 * HOUR_S) };
    });
    const seen = urls.version;
    const answers = await Promise.all([urls.renewFor(seen, 'a 403'), urls.renewFor(seen, 'a 403'), urls.renewFor(seen, 'a 403')]);
    expect(asked).toBe(1);
    expect(answers.map((answer) => answer?.state)).toEqual(['live', 'live', 'live']);
    expect(await urls.renewFor(seen, 'a late 403')).toBeNull();
    expect(asked).toBe(1);
  });

  it('while expired, make a fetch about to start wait for the renewal under way; while good, let it go', async () => {
    let answer: (renewal: Renewal) => void = () => undefined;
    const urls = urlsFor(() => new Promise((resolve) => (answer = resolve)));
    void urls.renewFor(urls.version, 'they expire soon');
    expect(urls.pending).toBeNull();
    vi.advanceTimersByTime(6 * HOUR_S * 1000);
    const pending = urls.pending;
    expect(pending).not.toBeNull();
    answer({ state: 'live', stream: streamExpiringIn(6 * HOUR_S) });
    expect(await pending).toMatchObject({ state: 'live' });
    expect(urls.pending).toBeNull();
  });
});
