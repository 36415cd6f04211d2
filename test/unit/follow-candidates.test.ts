import { describe, expect, it } from 'vitest';
import { dedupe } from '../../src/core/follows/check-follow.js';
import type { StreamCandidate } from '../../src/core/follows/follow.js';

const url = 'https://www.youtube.com/watch?v=kMembers001';

describe('candidates two signals saw', () => {
  it('are one stream, with what either signal knows: the feed names it, the tabs know it is members-only and when it starts', () => {
    const start = new Date('2026-11-24T18:00:00Z');
    const fromFeed: StreamCandidate = {
      id: 'kMembers001',
      url,
      title: 'zatsudan',
      liveStatus: 'unknown',
      membersOnly: null,
      scheduledStart: null,
      publishedAt: new Date('2026-11-23T10:00:00Z'),
    };
    const fromTabs: StreamCandidate = { id: 'kMembers001', url, title: 'zatsudan (renamed)', liveStatus: 'upcoming', membersOnly: true, scheduledStart: start };
    expect(dedupe([fromFeed, fromTabs])).toEqual([
      {
        id: 'kMembers001',
        url,
        title: 'zatsudan',
        liveStatus: 'upcoming',
        membersOnly: true,
        scheduledStart: start,
        publishedAt: new Date('2026-11-23T10:00:00Z'),
      },
    ]);
  });

  it('keeps different streams apart, and HLS broadcasts by their URL', () => {
    const one: StreamCandidate = { id: 'kUpcoming01', url, title: null, liveStatus: 'unknown', membersOnly: null, scheduledStart: null };
    const two: StreamCandidate = { ...one, id: 'kLiveNow001' };
    const hls: StreamCandidate = { ...one, id: null, url: 'https://live.example/index.m3u8', liveStatus: 'live' };
    expect(dedupe([one, two, hls, { ...hls }]).map((c) => c.id ?? c.url)).toEqual(['kUpcoming01', 'kLiveNow001', 'https://live.example/index.m3u8']);
  });
});
