/** When a frozen head was last seen growing and when the source is next asked about it: after `quiet`, then less and less often. */
export class Stall {
  private grewAt = Date.now();
  /** The first wait: as yt-dlp asks again after about 20 s of no growth, three fragments' time, at least `quietMs`. */
  private readonly quiet: number;
  private wait: number;
  private nextAskAt: number;

  constructor(
    private readonly timing: { quietMs: number; askMaxMs: number },
    fragmentSeconds: number,
  ) {
    this.quiet = this.wait = Math.max(3 * fragmentSeconds * 1000, timing.quietMs);
    this.nextAskAt = this.grewAt + this.wait;
  }

  grew(): void {
    this.grewAt = Date.now();
    this.wait = this.quiet;
    this.nextAskAt = this.grewAt + this.wait;
  }

  due(): boolean {
    return Date.now() >= this.nextAskAt;
  }

  asked(): void {
    this.wait = Math.min(this.wait * 2, this.timing.askMaxMs);
    this.nextAskAt = Date.now() + this.wait;
  }

  frozenMs(): number {
    return Date.now() - this.grewAt;
  }

  frozenSeconds(): number {
    return Math.round(this.frozenMs() / 1000);
  }
}
