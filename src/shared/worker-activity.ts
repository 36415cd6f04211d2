// Decisions: docs/decisions/0109-workers-report.md
/** How a webhook delivery attempt ended: delivered, failed (to be retried), or failed for the last time. */
export type DeliveryResult = 'delivered' | 'failed' | 'given_up';

/** The figures a worker process holds right now, each read from the part that holds it. */
export type WorkerGauge = 'capturesActive' | 'followsHeld';

/**
 * What one worker process has done and holds, for its own /metrics: counters added to where the
 * work happens (a segment stored, a delivery tried), gauges read from the part that holds them.
 */
export class WorkerActivity {
  /** Bytes of segments this process's captures stored. */
  captureBytes = 0;
  readonly webhookDeliveries: Record<DeliveryResult, number> = { delivered: 0, failed: 0, given_up: 0 };
  /** Scheduled backups this process took, and those that failed (decision 0122). */
  readonly backups: Record<'taken' | 'failed', number> = { taken: 0, failed: 0 };
  private readonly gauges = new Map<WorkerGauge, () => number>();

  /** Where `gauge` is read from, told by the part that holds it (the last one told wins). */
  measure(gauge: WorkerGauge, read: () => number): void {
    this.gauges.set(gauge, read);
  }

  /** `gauge` now; 0 before its part started. */
  read(gauge: WorkerGauge): number {
    return this.gauges.get(gauge)?.() ?? 0;
  }
}
