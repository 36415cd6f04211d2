// What a use case asks of the background: the next steps of a record's lifecycle, run as queued
// jobs (src/jobs: JOBS in catalogue.ts, run by src/jobs/runtime).

/** Schedules the lifecycle's next steps (queued jobs behind it: src/jobs/jobs.ts). */
export interface Scheduler {
  watch(livestreamId: string, at?: Date): Promise<void>;
  /** `resume`: a capture whose worker died, run before captures that have not started (decision 0038). */
  capture(livestreamId: string, options?: { resume: boolean }): Promise<void>;
  /** Asks for the live chat of a stream being captured (YouTube). */
  chat(livestreamId: string): Promise<void>;
  finalize(livestreamId: string): Promise<void>;
}

/** Which records have a job waiting or running (the sweep repairs those that have none). */
export interface PendingJobs {
  /** The ids among `livestreamIds` with a `job` created, waiting to retry, or running. */
  pending(job: 'watch' | 'capture' | 'finalize', livestreamIds: readonly string[]): Promise<Set<string>>;
}
