import type { Platform } from '../vocabulary.js';
import type { StreamSource } from './ports.js';

export interface Validation {
  valid: boolean;
  /** The channel the stream belongs to (an HLS stream's host), when valid. */
  channelId: string | null;
  reason?: string;
  /** What the source says of the stream, when valid and the source tells (YouTube does, HLS does not). */
  platform?: Platform;
  title?: string;
  channelName?: string;
  thumbnail?: string;
  scheduledStart?: string;
}

/** Whether a URL could be submitted now: a stream a source records that is upcoming or live. */
export async function validateStream(deps: { source: StreamSource }, url: string): Promise<Validation> {
  const inspection = await deps.source.inspect(url);
  if (inspection.kind === 'rejected') return { valid: false, channelId: null, reason: inspection.reason };
  const details = inspection.details;
  const described =
    details === null
      ? {}
      : {
          title: details.title,
          channelName: details.channelName,
          ...(details.thumbnailUrl ? { thumbnail: details.thumbnailUrl } : {}),
          ...(details.scheduledStart ? { scheduledStart: details.scheduledStart.toISOString() } : {}),
        };
  return { valid: true, channelId: details?.channelId || new URL(inspection.canonicalUrl).hostname, platform: inspection.platform, ...described };
}
