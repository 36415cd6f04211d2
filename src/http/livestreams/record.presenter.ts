import type { LivestreamDetails as CoreDetails } from '../../core/get-livestream-details.js';
import type { Livestream } from '../../core/livestream.js';
import { toRecordDocument } from '../../core/record-document.js';
import type { LivestreamDetails, LivestreamRecord } from './record.schema.js';

/** A record as the API shows it (the same shape the search index holds). */
export function presentRecord(livestream: Livestream, publicUrl: string): LivestreamRecord {
  return toRecordDocument(livestream, publicUrl);
}

/** A record with its capture facts, for `/api/video/{id}`. */
export function presentDetails(
  livestream: Livestream,
  publicUrl: string,
  capture: CoreDetails['capture'],
): LivestreamDetails {
  const record = presentRecord(livestream, publicUrl);
  return {
    ...record,
    failureReason: livestream.failureReason,
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
