// Decisions: docs/decisions/0128-clips.md
import { AppError } from '../../core/errors.js';

/** How many clips are cut at once in this process: in all, and for one caller (a user, or an address without a login). */
export interface ClipLimits {
  atOnce: number;
  perCaller: number;
}

/**
 * Counts the clips this process is cutting, refusing one past either limit with
 * `too_many_requests` (429): each is an ffmpeg reading the store, and a recording on the same
 * machine must not pay for them.
 */
export class ClipGate {
  private cutting = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(private readonly limits: ClipLimits) {}

  /** Takes a place for `caller`; the returned function gives it back (once). */
  enter(caller: string): () => void {
    const own = this.byCaller.get(caller) ?? 0;
    if (own >= this.limits.perCaller) {
      throw new AppError(
        'rate_limited',
        'too_many_requests',
        `At most ${this.limits.perCaller} clip(s) are cut at once for one caller; wait for yours to finish.`,
        5,
      );
    }
    if (this.cutting >= this.limits.atOnce) {
      throw new AppError('rate_limited', 'too_many_requests', `This server is cutting ${this.cutting} clips, its most at once; try again in a few seconds.`, 5);
    }
    this.cutting += 1;
    this.byCaller.set(caller, own + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.cutting -= 1;
      const now = (this.byCaller.get(caller) ?? 1) - 1;
      if (now === 0) this.byCaller.delete(caller);
      else this.byCaller.set(caller, now);
    };
  }
}
