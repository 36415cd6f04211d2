// Decisions: docs/decisions/0109-workers-report.md
import http, { STATUS_CODES } from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { DeliveryResult, WorkerActivity } from '../shared/worker-activity.js';
import { PARKED_MS } from './event-loop-lag.js';
import { PROBLEM_MEDIA_TYPE } from './responses.schema.js';

/** What a worker's status server reports: who it is, what it does, and the queue's backlog. */
export interface WorkerStatusSources {
  workerId: string;
  activity: WorkerActivity;
  /** The jobs waiting in each queue (every worker sees the same queue). */
  jobsWaiting(): Promise<Map<string, number>>;
}

/** A worker's status server, listening. */
export interface WorkerStatusServer {
  url: string;
  close(): Promise<void>;
}

const DELIVERY_RESULTS: readonly DeliveryResult[] = ['delivered', 'failed', 'given_up'];

/**
 * A worker process's own `/healthz` and `/metrics` (KURA_WORKER_PORT), on node:http: a worker
 * loads no web framework, and these two answers are all it serves. The metrics are this process's
 * (its captures, what they stored, the follows it holds, the deliveries it tried) and the queue's
 * backlog, with the process's defaults as the api's /metrics has them.
 */
export async function serveWorkerStatus(sources: WorkerStatusSources, listen: { host: string; port: number }): Promise<WorkerStatusServer> {
  const registry = workerRegistry(sources);
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') return problem(response, 405, 'method_not_allowed', 'Only GET and HEAD are answered here.');
    if (path === '/healthz') return json(response, 200, { status: 'ok', workerId: sources.workerId });
    if (path !== '/metrics') return problem(response, 404, 'not_found', 'A worker serves /healthz and /metrics only.');
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(text);
      },
      (error: Error) => problem(response, 503, 'database_unavailable', `The metrics could not be read: ${error.message}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, resolve);
  });
  const { address, port } = server.address() as { address: string; port: number };
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function workerRegistry({ activity, jobsWaiting }: WorkerStatusSources): Registry {
  const registry = new Registry();
  // as the api's: prom-client's lag sampler parked, so an idle worker is not woken by it
  collectDefaultMetrics({ register: registry, prefix: 'kura_', eventLoopMonitoringPrecision: PARKED_MS });
  const registers = [registry];
  new Gauge({
    name: 'kura_captures_active',
    help: 'Captures this worker runs now',
    registers,
    collect() {
      this.set(activity.read('capturesActive'));
    },
  });
  new Counter({
    name: 'kura_capture_bytes_total',
    help: "Bytes of segments this worker's captures stored",
    registers,
    collect() {
      this.reset();
      this.inc(activity.captureBytes);
    },
  });
  new Gauge({
    name: 'kura_follows_held',
    help: 'Follows this worker holds and checks',
    registers,
    collect() {
      this.set(activity.read('followsHeld'));
    },
  });
  new Counter({
    name: 'kura_webhook_deliveries_total',
    help: 'Webhook delivery attempts this worker made, by result: delivered, failed (retried later), given_up (the last)',
    labelNames: ['result'] as const,
    registers,
    collect() {
      this.reset();
      for (const result of DELIVERY_RESULTS) this.inc({ result }, activity.webhookDeliveries[result]);
    },
  });
  new Counter({
    name: 'kura_backups_total',
    help: 'Scheduled backups this worker took (KURA_BACKUP_DIR), by result: taken, failed',
    labelNames: ['result'] as const,
    registers,
    collect() {
      this.reset();
      for (const result of ['taken', 'failed'] as const) this.inc({ result }, activity.backups[result]);
    },
  });
  new Gauge({
    name: 'kura_jobs_waiting',
    help: 'Jobs waiting in each queue (sent or to be retried, due or not), across every worker',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      this.reset();
      for (const [queue, count] of await jobsWaiting()) this.set({ queue }, count);
    },
  });
  return registry;
}

function json(response: http.ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function problem(response: http.ServerResponse, status: number, code: string, detail: string): void {
  response.writeHead(status, { 'content-type': PROBLEM_MEDIA_TYPE });
  response.end(JSON.stringify({ type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, code }));
}
