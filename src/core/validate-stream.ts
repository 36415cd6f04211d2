import type { StreamSource } from './ports.js';

export interface Validation {
  valid: boolean;
  /** The channel the stream belongs to (an HLS stream's host), when valid. */
  channelId: string | null;
  reason?: string;
}

/** Whether a URL could be submitted now: a stream a source records that is upcoming or live. */
export async function validateStream(deps: { source: StreamSource }, url: string): Promise<Validation> {
  const inspection = await deps.source.inspect(url);
  if (inspection.kind === 'rejected') return { valid: false, channelId: null, reason: inspection.reason };
  return { valid: true, channelId: inspection.details?.channelId || new URL(inspection.canonicalUrl).hostname };
}
