/** Successes in a row after which one more fragment is fetched at once. */
const WIDEN_AFTER = 16;

/**
 * How many fragments a capture fetches at once (two requests each: its video and its audio):
 * halved by a 401 (YouTube's answer to too many connections) or a time-out, one more after a run of
 * successes, up to `most`. A request waits for a place, so fetches begun before a narrowing also
 * keep to it on their next try.
 */
export class FetchLanes {
  /** Fragments fetched at once now. */
  now: number;
  private successes = 0;
  private requests = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly most: number,
    private readonly log: (line: string) => Promise<void>,
  ) {
    this.now = most;
  }

  /** Waits for a place among the requests under way; resolves with the function giving it back (idempotent). */
  async slot(): Promise<() => void> {
    while (this.requests >= 2 * this.now) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.requests++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.requests--;
      this.waiting.shift()?.();
    };
  }

  /** A fragment answered: after a run of them, one more is fetched at once. */
  succeeded(): void {
    if (++this.successes < WIDEN_AFTER || this.now >= this.most) return;
    [this.now, this.successes] = [this.now + 1, 0];
    void this.log(`${WIDEN_AFTER} fragment answers in a row: fetching ${this.now} fragment(s) at once again`).catch(() => undefined);
  }

  /** A 401 or a time-out: too many fetches at once for the source, or for the link; half as many from now on. */
  async narrow(why: string): Promise<void> {
    this.successes = 0;
    if (this.now === 1) return;
    this.now = Math.max(1, Math.floor(this.now / 2));
    await this.log(`${why}: fetching ${this.now} fragment(s) at once from now on`);
  }
}
