// Decisions: docs/decisions/0030-kura-clock.md
import type { JobSchedule } from '../job-definition.js';
import type { Jobs } from '../jobs.js';

/**
 * Calls `send` for each schedule when its time comes, in every worker; `send` makes the workers'
 * calls of one period one job (pg-boss's singleton slot). One timer per schedule, sleeping until
 * the next tick. Returns a stop function.
 */
export function startJobClock(schedules: readonly JobSchedule[], send: (schedule: JobSchedule) => Promise<void>, onError: (error: Error) => void): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const arm = (schedule: JobSchedule) => {
    const period = schedule.everySeconds * 1000;
    const offset = schedule.atSecond * 1000;
    const now = Date.now();
    const next = Math.floor((now - offset) / period) * period + offset + period;
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(schedule).catch(onError);
      arm(schedule);
    }, next - now);
    timer.unref();
    timers.add(timer);
  };
  schedules.forEach(arm);
  return () => timers.forEach((timer) => clearTimeout(timer));
}

/** The job-clock loop of the catalogue: sends each scheduled job at its time, in every worker (the queue keeps one per period). */
export function startJobClockLoop(context: { jobs: Pick<Jobs, 'startClock'> }, wake: { schedules: readonly JobSchedule[] }): () => void {
  return context.jobs.startClock(wake.schedules);
}
