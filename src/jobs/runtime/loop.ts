import type { ChangeFeed } from '../../shared/change-feed.js';
import type { JobSchedule } from '../job-definition.js';
import type { NotifyChannel } from './notify-channels.js';

/** The backstop timer of the loops that notifications wake. */
export const backstop = (times: LoopTimes): number => times.backstopSeconds;

/** The settings a loop's timer is read from. */
export interface LoopTimes {
  /** The longest a notified loop sleeps without looking, whatever the notifications said (KURA_JOB_POLL_SECONDS). */
  backstopSeconds: number;
}

/** What wakes a loop: notifications on a channel (from any process), a timer, or both. */
export interface WakeUp {
  /** Its notifications wake it, as does the notifications' (re)connection or loss (anything may have changed meanwhile). */
  channel: NotifyChannel | null;
  /** Its timer, in seconds: its period, or (with a channel) the backstop. */
  everySeconds: ((times: LoopTimes) => number) | null;
  /** The job clock's timers: the times the scheduled jobs are sent. */
  schedules?: readonly JobSchedule[];
}

/** What a started loop is woken by: its channel's feed and its timer, as its WakeUp declares them. */
export interface Wake {
  feed: ChangeFeed | null;
  everySeconds: number | null;
  schedules: readonly JobSchedule[];
}

/** A Wake as WakeUp `W` declares it (a loop reading its feed or its timer must have declared it); any WakeUp's: a Wake. */
export type WakeOf<W extends WakeUp> = WakeUp extends W
  ? Wake
  : {
      feed: W['channel'] extends NotifyChannel ? ChangeFeed : null;
      everySeconds: W['everySeconds'] extends null ? null : number;
      schedules: readonly JobSchedule[];
    };

/** What stops a loop: it looks no more, and its work in flight has ended when this resolves. */
export type StopLoop = () => void | Promise<void>;

/** One loop of background work: what it is for, what wakes it, and how it starts (`C`: the worker's parts it uses). */
export interface Loop<C> {
  purpose: string;
  wakeUp: WakeUp;
  start(context: C, wake: Wake): StopLoop | Promise<StopLoop>;
}

/** A loop as written: its start is given exactly the wake-up `W` it declares. */
export interface LoopDefinition<C, W extends WakeUp> {
  purpose: string;
  wakeUp: W;
  start(context: C, wake: WakeOf<W>): StopLoop | Promise<StopLoop>;
}

/** A loop's definition with its wake-up's literal types kept, so its start is given what it declared. */
export function defineLoop<C, const W extends WakeUp>(loop: LoopDefinition<C, W>): LoopDefinition<C, W> {
  return loop;
}

/** One LISTEN connection: a feed for each of its channels. */
export interface ChannelFeeds {
  feed(channel: string): ChangeFeed;
  close(): Promise<void>;
}

/**
 * Opens the worker's one LISTEN connection, for `channels` (the shared change-listener adapter,
 * handed in by the composition root); the worker's liveness is tied to its session (decision 0038).
 */
export type Listen = (channels: readonly string[]) => Promise<ChannelFeeds>;

/** Starts `loop` with the wake-up it declares: its channel's feed from `feeds`, its timer from `times`. */
export function startLoop<C>(loop: Loop<C>, context: C, feeds: { feed(channel: string): ChangeFeed }, times: LoopTimes): StopLoop | Promise<StopLoop> {
  const { channel, everySeconds, schedules } = loop.wakeUp;
  const wake: Wake = { feed: channel === null ? null : feeds.feed(channel), everySeconds: everySeconds?.(times) ?? null, schedules: schedules ?? [] };
  return loop.start(context, wake);
}
