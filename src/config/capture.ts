// The capture slice of the configuration, parsed by src/config/config.ts from the environment it read.

export interface CaptureConfig {
  maxCaptures: number;
  /** A capture ends when its playlist answers but lists no new segment for this long. */
  idleSeconds: number;
  /** A capture ends when its playlist does not answer at all for this long. */
  unreachableSeconds: number;
  /** A capture ends when its playlist keeps answering 404/410 for this long: the source went offline. */
  offlineSeconds: number;
  /** A capture stops recording past this much media (seconds) or these many bytes. */
  maxSeconds: number;
  maxBytes: number;
  /** A capture stops cleanly (keeping what it recorded) when the spool's disk has less free space. */
  minFreeBytes: number;
  neverLiveSeconds: number;
  watchPollSeconds: number;
  staleAfterSeconds: number;
  jobPollSeconds: number;
  /** A capture's local chunk is sealed and uploaded once it holds this many bytes (KURA_SPOOL_CHUNK_MB). */
  chunkBytes: number;
  /**
   * …or this many seconds of media, if not 0 (KURA_SPOOL_CHUNK_SECONDS): the live edge an api
   * without the worker's disk can play. Default 30 for a worker of its own (KURA_ROLE=worker)
   * storing to S3, else 0.
   */
  chunkSeconds: number;
}

type Read = (name: string) => string | undefined;
type Numeric = (name: string, fallback: number, min: number, max: number) => number;

/** The capture slice of the environment: limits, time-outs, polls and the spool's chunks. */
export function parseCapture(read: Read, integer: Numeric, decimal: Numeric): CaptureConfig {
  return {
    maxCaptures: integer('KURA_MAX_CAPTURES', 4, 1, 100),
    idleSeconds: decimal('KURA_CAPTURE_IDLE_SECONDS', 90, 1, 86_400),
    unreachableSeconds: decimal('KURA_CAPTURE_UNREACHABLE_SECONDS', 600, 1, 86_400),
    offlineSeconds: decimal('KURA_CAPTURE_OFFLINE_SECONDS', 30, 1, 86_400),
    maxSeconds: decimal('KURA_CAPTURE_MAX_SECONDS', 12 * 3600, 1, 22 * 3600),
    maxBytes: integer('KURA_CAPTURE_MAX_BYTES', 100 * 10 ** 9, 1, Number.MAX_SAFE_INTEGER),
    minFreeBytes: integer('KURA_MIN_FREE_DISK_MB', 1024, 0, 10 ** 9) * 1024 * 1024,
    neverLiveSeconds: decimal('KURA_NEVER_LIVE_SECONDS', 12 * 3600, 1, 30 * 86_400),
    watchPollSeconds: decimal('KURA_WATCH_POLL_SECONDS', 15, 0.5, 3600),
    staleAfterSeconds: decimal('KURA_CAPTURE_STALE_SECONDS', 30, 3, 3600),
    jobPollSeconds: decimal('KURA_JOB_POLL_SECONDS', 300, 0.5, 3600),
    chunkBytes: integer('KURA_SPOOL_CHUNK_MB', 64, 1, 1024) * 1024 * 1024,
    chunkSeconds: decimal('KURA_SPOOL_CHUNK_SECONDS', read('KURA_ROLE') === 'worker' && read('KURA_STORAGE') === 's3' ? 30 : 0, 0, 86_400),
  };
}
