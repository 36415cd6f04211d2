import { describe, expect, it } from 'vitest';
import { pickVariant } from '../../src/adapters/sources/hls-playlist.js';

const variants = [
  { url: 'https://cdn.example/360.m3u8', bandwidth: 800_000, height: 360 },
  { url: 'https://cdn.example/1080.m3u8', bandwidth: 6_000_000, height: 1080 },
  { url: 'https://cdn.example/720.m3u8', bandwidth: 3_000_000, height: 720 },
];

describe('picking a variant of a master playlist', () => {
  it('takes the highest bandwidth by default and for "best"', () => {
    expect(pickVariant(variants, null)?.height).toBe(1080);
    expect(pickVariant(variants, 'best')?.height).toBe(1080);
  });

  it('takes the best variant at most as tall as the requested quality', () => {
    expect(pickVariant(variants, '720p')?.height).toBe(720);
    expect(pickVariant(variants, '900p')?.height).toBe(720);
  });

  it('falls back to the smallest variant when none is that small', () => {
    expect(pickVariant(variants, '144p')?.height).toBe(360);
  });
});
