import type { ArchiveStore } from '../core/archive/ports.js';
import type { ChatLog } from '../core/chat/ports.js';
import type { CaptureRepo, RecordedBytes } from '../core/capture/ports.js';
import type { ChannelRepo } from '../core/channels/ports.js';
import type { LivestreamRepo } from '../core/livestream/ports.js';
import type { StreamSource } from '../core/sources/ports.js';
import type { ReadCache } from './read-cache.js';

/** What route plugins receive: ports and the slice of config the HTTP layer reads. */
export interface RouteContext {
  livestreams: LivestreamRepo;
  channels: ChannelRepo;
  captures: CaptureRepo;
  chats: ChatLog;
  /** What captures recorded so far, as this process can read it (live playback). */
  recordedBytes: RecordedBytes;
  store: ArchiveStore;
  /** The sources submissions are judged by (YouTube, HLS). */
  source: StreamSource;
  cache: ReadCache;
  publicUrl: string;
  usdPerGbPerMonth: number;
}
