import type { Livestream } from '../records/livestream.js';
import { urlFor, type Audience } from '../sources/public-url.js';
import type { Integrity, LivestreamStatus, Platform } from '../vocabulary.js';

/**
 * A record as Kura shows it to the world: as the API's history, queue and video answer it
 * (LivestreamRecordSchema in src/http/livestreams/record.schema.ts describes it), as the search
 * index holds it, and as a webhook event carries it. Times are ISO 8601 (UTC), URLs absolute.
 * A type rather than an interface: a plain JSON object, which the search index takes as a document.
 */
export type PublicRecord = {
  id: string;
  submitters: string[];
  scheduledStart: string;
  finished: boolean;
  title: string;
  channelName: string;
  channelId: string;
  /** The thumbnail's URL; empty while none is known. */
  thumbnail: string;
  status: LivestreamStatus;
  platform: Platform;
  sourceUrl: string;
  startedAt: string | null;
  endedAt: string | null;
  /** Present when an archive exists (Kura's file, or an external URL). */
  downloadUrl?: string;
  fileSizeBytes?: number;
  length?: number;
  /** Present when Kura stores the archive: its last verification's finding, null before the first. */
  integrity?: Integrity | null;
};

/**
 * The one way a record is shown: URLs absolute, built from the public base URL; `sourceUrl` whole
 * for the admin, redacted for anyone else (no user name or password, query values masked but
 * YouTube's `v`, `list`, `t`, `index`). The API's presenter and the webhook body both call this.
 */
export function publicRecord(livestream: Livestream, publicUrl: string, audience: Audience): PublicRecord {
  const { archive } = livestream;
  const record: PublicRecord = {
    id: livestream.id,
    submitters: livestream.submitters,
    scheduledStart: livestream.scheduledStart.toISOString(),
    finished: livestream.status === 'finished',
    title: livestream.title,
    channelName: livestream.channelName,
    channelId: livestream.channelId,
    thumbnail: thumbnailUrl(livestream, publicUrl),
    status: livestream.status,
    platform: livestream.platform,
    sourceUrl: urlFor(audience, livestream.sourceUrl),
    startedAt: livestream.startedAt?.toISOString() ?? null,
    endedAt: livestream.endedAt?.toISOString() ?? null,
  };
  const downloadUrl = archive?.videoKey ? downloadUrlOf(publicUrl, livestream.id, 'video') : archive?.externalUrl;
  if (archive !== null && downloadUrl) {
    record.downloadUrl = downloadUrl;
    record.fileSizeBytes = archive.fileSizeBytes;
    record.length = archive.lengthSeconds;
  }
  if (archive?.videoKey) record.integrity = livestream.integrity?.state ?? null;
  return record;
}

function thumbnailUrl(livestream: Livestream, publicUrl: string): string {
  if (livestream.archive?.thumbnailKey) return downloadUrlOf(publicUrl, livestream.id, 'thumbnail');
  return livestream.thumbnailUrl ?? '';
}

/** Where `GET /api/download/{id}/{type}` serves a record's file. */
function downloadUrlOf(publicUrl: string, id: string, type: 'video' | 'thumbnail'): string {
  return `${publicUrl}/api/download/${encodeURIComponent(id)}/${type}`;
}
