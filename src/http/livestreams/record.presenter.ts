import type { LivestreamDetails as CoreDetails } from '../../core/workflow/get-livestream-details.js';
import type { Livestream } from '../../core/livestream/livestream.js';
import { redactUrlsIn, urlFor, type Audience } from '../../core/sources/public-url.js';
import type { LivestreamDetails, LivestreamRecord } from './record.schema.js';

/**
 * The one way a record is shown: as history, queue and video answer it, and as the search index
 * holds it (its search document). URLs are absolute, built from the public base URL. `sourceUrl`
 * is whole for the admin, redacted for anyone else (`redactUrl`: no user name or password, query
 * values masked but YouTube's `v`, `list`, `t`, `index`).
 */
export function presentRecord(livestream: Livestream, publicUrl: string, audience: Audience): LivestreamRecord {
  const { archive } = livestream;
  const record: LivestreamRecord = {
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

/** A record with its capture facts, for `/api/video/{id}`; a failure's reason with its URLs redacted but for the admin. */
export function presentDetails(livestream: Livestream, publicUrl: string, capture: CoreDetails['capture'], audience: Audience): LivestreamDetails {
  const record = presentRecord(livestream, publicUrl, audience);
  const reason = livestream.failureReason;
  return {
    ...record,
    failureReason: audience === 'admin' || reason === null ? reason : redactUrlsIn(reason),
    downloads: livestream.downloadCount,
    sha256: livestream.archive?.sha256 ?? null,
    ...(record.integrity === undefined ? {} : { verifiedAt: livestream.integrity?.verifiedAt.toISOString() ?? null }),
    createdAt: livestream.createdAt.toISOString(),
    updatedAt: livestream.updatedAt.toISOString(),
    capture:
      capture === null
        ? null
        : {
            state: capture.capture.state,
            endReason: capture.capture.endReason,
            parts: capture.parts,
            gaps: capture.gaps,
            complete: capture.gaps.length === 0,
          },
  };
}

function thumbnailUrl(livestream: Livestream, publicUrl: string): string {
  if (livestream.archive?.thumbnailKey) return downloadUrlOf(publicUrl, livestream.id, 'thumbnail');
  return livestream.thumbnailUrl ?? '';
}

/** Where `GET /api/download/{id}/{type}` serves a record's file. */
function downloadUrlOf(publicUrl: string, id: string, type: 'video' | 'thumbnail'): string {
  return `${publicUrl}/api/download/${encodeURIComponent(id)}/${type}`;
}
