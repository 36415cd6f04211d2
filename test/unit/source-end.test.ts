import { describe, expect, it } from 'vitest';
import { restartedBroadcast } from '../../src/adapters/capture/source-end.js';
import type { MediaPlaylist } from '../../src/adapters/sources/hls-playlist.js';

const listing = (first: number, count: number): MediaPlaylist => ({
  targetDurationSeconds: 1,
  ended: false,
  text: '',
  segments: Array.from({ length: count }, (_, i) => ({
    sequence: first + i,
    url: `http://endpoint.test/seg${first + i}.ts`,
    range: null,
    durationSeconds: 1,
    discontinuity: false,
    init: null,
    ad: false,
    key: null,
  })),
});

describe('telling a new broadcast on the same playlist from a stale one', () => {
  it('calls a media sequence far below what was recorded a restart, and says so', () => {
    expect(restartedBroadcast(listing(0, 2), 40)).toBe('the playlist now lists sequences 0-1, far below 40: a new broadcast');
    expect(restartedBroadcast(listing(0, 3), 8)).not.toBeNull();
  });

  it('takes a playlist up to a window behind for a stale cached copy, not a restart', () => {
    expect(restartedBroadcast(listing(35, 5), 40)).toBeNull(); // the previous poll's playlist
    expect(restartedBroadcast(listing(31, 5), 40)).toBeNull(); // newest 35, five behind: within the window of five
    expect(restartedBroadcast(listing(30, 5), 40)).not.toBeNull(); // newest 34: more than a window behind
    expect(restartedBroadcast(listing(38, 5), 40)).toBeNull(); // lists new segments
  });

  it('cannot restart before anything was recorded, nor on an empty playlist', () => {
    expect(restartedBroadcast(listing(0, 3), null)).toBeNull();
    expect(restartedBroadcast(listing(0, 0), 40)).toBeNull();
  });
});
