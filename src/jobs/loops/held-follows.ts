// Decisions: docs/decisions/0095-title-rules-compiled-once-and-bounded.md, docs/decisions/0111-follows-shared-evenly.md
import { checkFollow, type CheckDeps, type CheckPolicy } from '../../core/follows/check-follow.js';
import type { Follow, SignalName } from '../../core/follows/follow.js';
import { titleRules, type TitleRefusal } from '../../core/follows/follow-rules.js';
import type { CheckOutcome, HeldLook } from '../../core/follows/ports.js';

/** Node's timers hold at most 2^31 - 1 ms (about 24 days); a check further off is looked at then, early. */
const MAX_TIMER_MS = 2_147_483_647;
/** A check that failed (its database writes) is tried again this much later. */
const RETRY_MS = 10_000;
/**
 * Looks due within one tick are made at one wake-up of the process, which costs far less than a
 * wake-up each: a look is made up to a tick early, never late, and at most 6 % of its interval
 * early (inside the interval's ±10 % jitter). A timer may ring a few ms early: that much more.
 */
const TICK_MS = 250;
const EARLY_SHARE = 0.06;
const TIMER_SLOP_MS = 5;

interface Held {
  follow: Follow;
  /** The follow's next_check_at as this worker last wrote or read it. */
  storedDue: Date;
  timer: NodeJS.Timeout | undefined;
  checking: boolean;
  /** Brought forward while its check ran: due again at once after it. */
  again: boolean;
  /** A check that changed nothing but times, not written yet. */
  unwritten: HeldLook | null;
  /** Its title rules compiled, with their text: compiled again only when they change, not at every check. */
  titles: { text: string; refusal: TitleRefusal } | null;
}

export interface HeldOptions {
  concurrency: number;
  policy: CheckPolicy;
  onChecked?: (follow: Follow, outcome: CheckOutcome) => void;
  onError: (error: Error, followId: string | null) => void;
}

/**
 * The follows a worker holds, each checked when its own time comes (a timer each), `concurrency`
 * at once; an outcome that changed what users see is written at once, one that changed only times
 * is kept for `flush` (decision 0082).
 */
export class HeldFollows {
  private readonly held = new Map<string, Held>();
  private readonly ready: string[] = [];
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly deps: CheckDeps,
    private readonly options: HeldOptions,
  ) {}

  get size(): number {
    return this.held.size;
  }

  ids(): string[] {
    return [...this.held.keys()];
  }

  has(id: string): boolean {
    return this.held.has(id);
  }

  /** Up to `count` held follows whose next check is furthest away (those a worker past its share lets go of first). */
  dueLast(count: number): string[] {
    // one being checked is kept: let go now, another worker could check it before this check is written
    const byDue = [...this.held.values()].filter((held) => !held.checking).sort((a, b) => b.follow.nextCheckAt.getTime() - a.follow.nextCheckAt.getTime());
    return byDue.slice(0, Math.max(0, count)).map((held) => held.follow.id);
  }

  /** Holds a follow as claimed (its row as read), checked at its nextCheckAt. */
  take(follow: Follow): void {
    this.drop(follow.id);
    const held: Held = { follow, storedDue: follow.nextCheckAt, timer: undefined, checking: false, again: false, unwritten: null, titles: null };
    this.held.set(follow.id, held);
    this.schedule(held);
  }

  /** A held follow as read again after a change elsewhere: its rules and names from the row, its health from memory. */
  update(row: Follow): void {
    const held = this.held.get(row.id);
    if (held === undefined) return;
    const { signals, lastCheckedAt, nextCheckAt } = held.follow;
    held.follow = { ...row, signals, lastCheckedAt, nextCheckAt };
    if (row.nextCheckAt.getTime() < held.storedDue.getTime()) {
      // brought forward (a resume, a stream.online): every signal due later is due then, and looks afresh
      const due = row.nextCheckAt;
      for (const signal of Object.values(this.deps.signals)) signal.forget?.(row);
      held.follow.signals = signals.map((s) => (s.nextCheckAt.getTime() > due.getTime() ? { ...s, nextCheckAt: due } : s));
      held.follow.nextCheckAt = due;
      held.storedDue = due;
      held.unwritten = null;
      held.again = held.checking;
    }
    this.schedule(held);
  }

  /** Stops holding a follow (removed, paused, or no longer this worker's). */
  drop(id: string): void {
    const held = this.held.get(id);
    if (held === undefined) return;
    clearTimeout(held.timer);
    this.held.delete(id);
  }

  /** The checks that changed only times since the last call, taken: the caller writes them. */
  takeUnwritten(): HeldLook[] {
    const looks: HeldLook[] = [];
    for (const held of this.held.values()) {
      if (held.unwritten === null) continue;
      looks.push(held.unwritten);
      held.storedDue = held.unwritten.nextCheckAt;
      held.unwritten = null;
    }
    return looks;
  }

  /** Stops checking: no check starts, and the running ones are waited for. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const held of this.held.values()) clearTimeout(held.timer);
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** How early a signal's look may be made to share a wake-up (TICK_MS). */
  private earlyMs(signal: SignalName): number {
    return Math.min(TICK_MS, this.options.policy.intervals[signal] * 1000 * EARLY_SHARE);
  }

  /** The held follow's title rules, compiled when first needed and again only when an edit changed them. */
  private titlesOf(held: Held): TitleRefusal {
    const { rules } = held.follow;
    const text = JSON.stringify([rules.titleInclude, rules.titleExclude]);
    if (held.titles?.text !== text) held.titles = { text, refusal: titleRules(rules) };
    return held.titles.refusal;
  }

  private schedule(held: Held): void {
    clearTimeout(held.timer);
    if (held.checking || this.stopped) return; // scheduled again when its check ends
    const id = held.follow.id;
    const due = held.follow.nextCheckAt.getTime();
    const first = held.follow.signals.find((s) => s.nextCheckAt.getTime() === due);
    const at = first === undefined ? due : Math.max(Math.floor(due / TICK_MS) * TICK_MS, due - this.earlyMs(first.signal));
    const ms = Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS);
    held.timer = setTimeout(() => this.due(id), ms);
    held.timer.unref();
  }

  private due(id: string): void {
    const held = this.held.get(id);
    if (held === undefined || held.checking || this.ready.includes(id)) return;
    this.ready.push(id);
    this.next();
  }

  private next(): void {
    while (!this.stopped && this.running.size < this.options.concurrency && this.ready.length > 0) {
      const held = this.held.get(this.ready.shift() as string);
      if (held === undefined) continue;
      const check: Promise<void> = this.check(held).finally(() => {
        this.running.delete(check);
        this.next();
      });
      this.running.add(check);
    }
  }

  private async check(held: Held): Promise<void> {
    const follow = held.follow;
    held.checking = true;
    try {
      const now = new Date();
      // the signals due by the end of this tick are looked at now
      const dueNow = follow.signals.map((s) =>
        s.nextCheckAt.getTime() - now.getTime() <= this.earlyMs(s.signal) + TIMER_SLOP_MS ? { ...s, nextCheckAt: now } : s,
      );
      const { outcome, after, unwritten } = await checkFollow(this.deps, { ...follow, signals: dueNow }, this.options.policy, now, {
        titles: this.titlesOf(held),
        storedDue: held.storedDue,
      });
      if (unwritten === null) held.storedDue = after.nextCheckAt;
      held.unwritten = unwritten;
      // what was read again meanwhile (rules, names) stays; the health is the check's
      const { signals, lastCheckedAt, nextCheckAt, failingSince, accessRefused, queuedCount } = after;
      held.follow = { ...held.follow, signals, lastCheckedAt, nextCheckAt, failingSince, accessRefused, queuedCount };
      this.options.onChecked?.(follow, outcome);
    } catch (error) {
      this.options.onError(error as Error, follow.id);
      held.follow = { ...held.follow, nextCheckAt: new Date(Date.now() + RETRY_MS) };
    } finally {
      held.checking = false;
    }
    if (held.again) {
      const now = new Date();
      const signals = held.follow.signals.map((s) => (s.nextCheckAt.getTime() > now.getTime() ? { ...s, nextCheckAt: now } : s));
      held.follow = { ...held.follow, signals, nextCheckAt: now };
    }
    held.again = false;
    if (this.held.get(follow.id) === held) this.schedule(held);
  }
}
