import type { ArchiveStore } from '../../core/archive/ports.js';
import type { CaptureLease, CaptureStates, ChunkLog, EncoderLog, PartLog, SegmentLog, Spool } from '../../core/capture/ports.js';
import type { Fetcher } from '../sources/http-fetch.js';

export interface RecorderLimits {
  /** End when the playlist answers but lists no new segment for this long. */
  idleSeconds: number;
  /** End when the playlist does not answer at all for this long. */
  unreachableSeconds: number;
  /** End when the playlist keeps answering 404/410 for this long: the source went offline. */
  offlineSeconds: number;
  /** Stop recording past this much media (seconds) or these many bytes. */
  maxSeconds: number;
  maxBytes: number;
  /** Stop cleanly (keeping what was captured) when the spool's disk has less free space. */
  minFreeBytes: number;
  heartbeatSeconds: number;
  /** A local chunk is sealed and uploaded once it holds this many bytes… */
  chunkBytes: number;
  /** …or this many seconds of media (0: no bound), so an api that cannot read the spool sees the live edge that late at most. */
  chunkSeconds: number;
  /** On shutdown, how long the chunks on local disk get to reach the store before the lease is given up. */
  handoverMs: number;
}

export interface RecorderDeps {
  captures: CaptureLease & CaptureStates & PartLog & SegmentLog & ChunkLog & EncoderLog;
  fetcher: Fetcher;
  spool: Spool;
  store: ArchiveStore;
  freeBytes: (dir: string) => Promise<number>;
  limits: RecorderLimits;
}
