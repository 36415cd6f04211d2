import type { RenewalTiming } from './fragment-urls.js';

/** How the recorder paces itself (tests shorten it). */
export interface FragmentTiming extends RenewalTiming {
  /** The waits between the attempts at one fragment the source says exists, before it is recorded as lost (yt-dlp skips after 10 immediate tries; these back off). */
  backoffMs: readonly number[];
  /** The newest fragment stopped growing this long (at least; three fragments' time when longer): the source is asked whether the stream is still on. */
  quietMs: number;
  /** While the head stays frozen, the source is asked again after a wait doubling up to this (each look is a yt-dlp run). */
  askMaxMs: number;
  /** A head frozen this long while the source says the stream is live ends the capture (`idle`): decision 0088. */
  stallLimitMs: number;
  /**
   * How many fragments (each its video and audio) are fetched at once at most, stored in order:
   * catching up on hours of a stream found late is then not one round trip after another
   * (yt-dlp's `-N`). Fewer after a 401 or a time-out, more again after a run of successes.
   */
  inFlight: number;
  /** How far back the source keeps a live stream's fragments (YouTube: 120 h, yt-dlp's MAX_DURATION). */
  retentionSeconds: number;
}

export const TIMING: FragmentTiming = {
  backoffMs: [250, 500, 1000, 2000, 2000, 3000, 4000],
  renewEveryMs: 15_000,
  renewMaxBackoffMs: 120_000,
  quietMs: 6000,
  askMaxMs: 300_000,
  stallLimitMs: 12 * 3600_000,
  inFlight: 4,
  retentionSeconds: 432_000,
};
