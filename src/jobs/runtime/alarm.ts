/** Node's timers hold at most 2^31 - 1 ms (about 24 days); an alarm set further rings then, early. */
const MAX_TIMER_MS = 2_147_483_647;

/** One timer keeping the earliest of the times it is set for: what sleeps until the next thing is due. */
export class Alarm {
  private timer: NodeJS.Timeout | undefined;
  private at = Infinity;

  constructor(private readonly ring: () => void) {}

  /** Rings in `ms` (at once, on the next turn, when ≤ 0), unless it is set to ring sooner already. */
  setIn(ms: number): void {
    const at = Date.now() + ms;
    if (at >= this.at) return;
    clearTimeout(this.timer);
    this.at = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.at = Infinity;
        this.ring();
      },
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.at = Infinity;
  }
}
