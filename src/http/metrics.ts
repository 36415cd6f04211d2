// Decisions: docs/decisions/0031-logs-and-metrics.md
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ArchiveCheckRepo } from '../core/archive/integrity.js';
import { registerDiskGauges, type DiskSource } from './disk-metrics.js';
import type { ReadCacheCounts } from './read-cache.js';
import type { DoorObserver, FrontDoor } from './front-door.js';
import { PARKED_MS, registerEventLoopLag } from './event-loop-lag.js';
import { healthOf, type Follow, type FollowHealth } from '../core/follows/follow.js';
import type { FollowRepo } from '../core/follows/ports.js';

/** The lifecycle sweep's repairs, each shown (0 until one happens). */
const SWEEP_ACTIONS = ['watch', 'capture', 'finalize', 'fail'] as const;
/** Every health a follow can have, each shown (0 when no follow has it). */
const FOLLOW_HEALTHS = ['ok', 'failing', 'unhealthy', 'paused'] as const satisfies readonly FollowHealth[];

/** Where the cluster-wide figures come from (PostgreSQL, read at each scrape); an unset source leaves its metric out. */
export interface MetricSources {
  /** Repairs of the lifecycle sweep by action, from every worker. */
  lifecycleRepairs?: () => Promise<Partial<Record<string, number>>>;
  /** Stored archives by integrity. */
  archives?: Pick<ArchiveCheckRepo, 'counts'>;
  /** The follows, for their health and what they queued. */
  follows?: Pick<FollowRepo, 'list'>;
  /** The archive storage's and the workers' spools' space. */
  disks?: DiskSource;
  /** This api process's read cache: the reads it answered from memory, computed, or computed because it could not be used. */
  readCache?: ReadCacheCounts;
  /** This api process's front door: the anonymous reads it answered before routing. */
  frontDoor?: Pick<FrontDoor, 'answered'>;
}

/**
 * Prometheus metrics for one app: process defaults, request durations per route, the lifecycle
 * sweep's repairs, the stored archives by integrity, the follows by health and the disks' space.
 */
export function installMetrics(app: FastifyInstance, sources: MetricSources = {}): { registry: Registry; observeDoorAnswer: DoorObserver } {
  const registry = new Registry();
  // prom-client's lag sampler cannot be left out of its defaults nor paused: it is parked (one tick
  // in ~24 days) and its gauges replaced by ours, which sample only while the loop works
  collectDefaultMetrics({ register: registry, prefix: 'kura_', eventLoopMonitoringPrecision: PARKED_MS });
  const stopLag = registerEventLoopLag(registry, 'kura_');
  app.addHook('onClose', async () => stopLag());
  const duration = new Histogram({
    name: 'kura_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const { lifecycleRepairs } = sources;
  if (lifecycleRepairs !== undefined) {
    new Counter({
      name: 'kura_sweep_repairs_total',
      help: 'Records the lifecycle sweep repaired, by action: watch (watched again), capture or finalize (resumed), fail (past its deadline)',
      labelNames: ['action'] as const,
      registers: [registry],
      async collect() {
        const counts = await lifecycleRepairs();
        this.reset();
        for (const action of SWEEP_ACTIONS) this.inc({ action }, counts[action] ?? 0);
      },
    });
  }
  if (sources.archives !== undefined) registerArchiveGauge(registry, sources.archives);
  if (sources.follows !== undefined) registerFollowGauges(registry, sources.follows);
  if (sources.disks !== undefined) registerDiskGauges(registry, sources.disks);
  const { readCache } = sources;
  if (readCache !== undefined) {
    new Counter({
      name: 'kura_read_cache_requests_total',
      help: 'Cacheable reads of this api process by result: hit (answered from its read cache), miss (computed and kept), bypass (computed: the cache is off or its change feed down)',
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const result of ['hit', 'miss', 'bypass'] as const) this.inc({ result }, readCache[result]);
      },
    });
  }
  const { frontDoor } = sources;
  if (frontDoor !== undefined) {
    new Counter({
      name: 'kura_front_door_answers_total',
      help: 'Anonymous GETs this api process answered from its read cache before routing them (also counted as read cache hits)',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(frontDoor.answered);
      },
    });
  }
  // a callback, not an async function: every request runs it, and a promise each is measurable
  app.addHook('onResponse', (request, reply, done) => {
    duration.observe(
      // the route pattern, never the raw URL, so labels stay bounded
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  // the front door's answers (GETs answered 200 before Fastify) counted as the route's
  const observeDoorAnswer: DoorObserver = (route, seconds) => duration.observe({ method: 'GET', route, status_code: '200' }, seconds);
  const schema = {
    operationId: 'getMetrics',
    tags: ['operations'],
    summary:
      'Prometheus metrics (text exposition format 0.0.4): process, HTTP requests per route, read cache results, lifecycle sweep repairs, archives by integrity, follows by health, archive storage and spool space',
    response: { 200: { description: 'Prometheus text format', content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } } } },
  };
  app.get('/metrics', { schema }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return { registry, observeDoorAnswer };
}

/** `kura_archives{integrity}`: counted at each scrape, from an index of the stored archives. */
function registerArchiveGauge(registry: Registry, archives: Pick<ArchiveCheckRepo, 'counts'>): void {
  new Gauge({
    name: 'kura_archives',
    help: 'Archives Kura stores, by what their last verification found (unverified: not checked yet)',
    labelNames: ['integrity'] as const,
    registers: [registry],
    async collect() {
      // the database not answering keeps the last counts: the other metrics are still served
      const counts = await archives.counts().catch(() => null);
      for (const [integrity, count] of Object.entries(counts ?? {})) this.set({ integrity }, count);
    },
  });
}

/** `kura_follows{health}` and `kura_follow_queued`: from one read of the follows per scrape (an unhealthy follow is one to alert on). */
function registerFollowGauges(registry: Registry, follows: Pick<FollowRepo, 'list'>): void {
  // the registry starts each metric's collect in registration order, then awaits them together:
  // kura_follows starts the read, kura_follow_queued awaits the same one
  let read: Promise<Follow[] | null> = Promise.resolve(null);
  new Gauge({
    name: 'kura_follows',
    help: 'Follows by health: ok, failing (every signal fails), unhealthy (failing for an hour or more), paused',
    labelNames: ['health'] as const,
    registers: [registry],
    async collect() {
      // the database not answering keeps the last figures, like kura_archives
      read = follows.list().catch(() => null);
      const all = await read;
      if (all === null) return;
      const now = new Date();
      const counts = new Map<FollowHealth, number>(FOLLOW_HEALTHS.map((health) => [health, 0]));
      for (const follow of all) {
        const health = healthOf(follow, now);
        counts.set(health, (counts.get(health) ?? 0) + 1);
      }
      for (const [health, count] of counts) this.set({ health }, count);
    },
  });
  new Gauge({
    name: 'kura_follow_queued',
    help: 'Streams the existing follows queued, ever',
    registers: [registry],
    async collect() {
      const all = await read;
      if (all !== null) this.set(all.reduce((sum, follow) => sum + follow.queuedCount, 0));
    },
  });
}
