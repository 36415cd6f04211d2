// Decisions: docs/decisions/0031-logs-and-metrics.md, docs/decisions/0083-what-a-recording-pays-for.md, docs/decisions/0086-one-wake-up-a-minute.md
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';
import { wakeEvery } from '../shared/wake-ups.js';

/** Node's longest timer (2^31 - 1 ms): prom-client's own lag sampler, parked at it, ticks once in ~24 days. */
export const PARKED_MS = 2_147_483_647;

/** The sampling interval while the loop works; each sample is this plus the lag (bench/capture subtracts it). */
export const LAG_SAMPLING_MS = 100;

export interface LagOptions {
  /** How often the loop's utilization is read to decide whether to sample. Default 60 s. */
  gateMs?: number;
  /** The share of the time the loop ran above which it is sampled. Default 5 %. */
  busyShare?: number;
}

/** A loop busy less than this share of the time has no lag worth sampling (a lone recording keeps it near 2 %). */
const BUSY_SHARE = 0.05;

const STATS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;
type Stat = (typeof STATS)[number];

/**
 * The event-loop lag gauges prom-client's default metrics have (`nodejs_eventloop_lag_{min,max,
 * mean,stddev,p50,p90,p99}_seconds`, each sample the interval between two ticks, reset at each
 * scrape), sampled every 100 ms only while the loop works. Sampling wakes the loop ten times a
 * second: 0.7 ms of CPU a second, more than everything else an idle Kura does. So every `gateMs`
 * the loop's utilization decides: above `busyShare` (5 %) it is sampled, below it is not, and a scrape
 * that found no sample reports what an idle loop measures (no lag). A stall while idle makes the
 * gate's own tick late: that shows in `max`.
 */
export function registerEventLoopLag(registry: Registry, prefix: string, options: LagOptions = {}): () => void {
  // prom-client's default metrics registered gauges of these names (their sampler parked): ours replace them
  for (const stat of STATS) registry.removeSingleMetric(`${prefix}nodejs_eventloop_lag_${stat}_seconds`);
  // each wake-up of an idle process costs a couple of milliseconds of CPU: the gate looks once a
  // minute, in the wake-up the process's other chores share (decision 0086)
  const gateMs = options.gateMs ?? 60_000;
  const sampler = monitorEventLoopDelay({ resolution: LAG_SAMPLING_MS });
  let utilization = performance.eventLoopUtilization();
  let due = performance.now() + gateMs;
  let stallMs = 0;
  const stopGate = wakeEvery(gateMs, () => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - due);
    due = now + gateMs;
    const current = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(current, utilization).utilization > (options.busyShare ?? BUSY_SHARE);
    utilization = current;
    if (busy) sampler.enable();
    else sampler.disable();
  });

  // the registry collects in registration order: the first gauge sets them all, then starts a new window
  const collect = () => {
    // no sample: the loop idled the whole window, and an idle loop's ticks come on time
    const ms = (ns: number) => (sampler.count === 0 ? LAG_SAMPLING_MS : ns / 1e6);
    const set = (stat: Stat, valueMs: number) => gauges[stat].set(valueMs / 1000);
    set('min', ms(sampler.min));
    set('max', Math.max(ms(sampler.max), LAG_SAMPLING_MS + stallMs));
    set('mean', ms(sampler.mean));
    set('stddev', sampler.count === 0 ? 0 : sampler.stddev / 1e6);
    set('p50', ms(sampler.percentile(50)));
    set('p90', ms(sampler.percentile(90)));
    set('p99', ms(sampler.percentile(99)));
    sampler.reset();
    stallMs = 0;
  };
  const gauges = Object.fromEntries(
    STATS.map((stat) => [
      stat,
      new Gauge({
        name: `${prefix}nodejs_eventloop_lag_${stat}_seconds`,
        help: `The ${stat} recorded event loop delay.`,
        registers: [registry],
        ...(stat === 'min' ? { collect } : {}),
      }),
    ]),
  ) as Record<Stat, Gauge>;
  return () => {
    stopGate();
    sampler.disable();
  };
}
