import type { ArchiveStore, CaptureRepo, LivestreamRepo } from '../core/ports.js';
import type { ReadCache } from './read-cache.js';

/** What route plugins receive: ports and the slice of config the HTTP layer reads. */
export interface RouteContext {
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  store: ArchiveStore;
  cache: ReadCache;
  publicUrl: string;
  usdPerGbPerMonth: number;
}
