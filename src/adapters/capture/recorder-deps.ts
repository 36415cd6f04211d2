import type { CaptureConfig } from '../../config/config.js';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { CaptureLease, CaptureStates, ChunkLog, EncoderLog, PartLog, SegmentLog, Spool } from '../../core/capture/ports.js';
import type { Fetcher } from '../sources/http-fetch.js';

/** What bounds a recording: the capture configuration's own limits, and two the worker sets. */
export type RecorderLimits = Pick<
  CaptureConfig,
  'idleSeconds' | 'unreachableSeconds' | 'offlineSeconds' | 'maxSeconds' | 'maxBytes' | 'minFreeBytes' | 'chunkBytes' | 'chunkSeconds'
> & {
  /** How often the lease is renewed. */
  heartbeatSeconds: number;
  /** On shutdown, how long the local chunks get to reach the store before the lease is given up. */
  handoverMs: number;
};

export interface RecorderDeps {
  captures: CaptureLease & CaptureStates & PartLog & SegmentLog & ChunkLog & EncoderLog;
  fetcher: Fetcher;
  spool: Spool;
  store: ArchiveStore;
  freeBytes: (dir: string) => Promise<number>;
  limits: RecorderLimits;
  /** Told the bytes of each segment stored (the worker's kura_capture_bytes_total). */
  recorded?: (bytes: number) => void;
}
