// Decisions: docs/decisions/0006-history-queue-and-stats.md, docs/decisions/0010-one-record-presenter-per-audience.md
import type { LivestreamDetails as CoreDetails } from '../../core/workflow/get-livestream-details.js';
import type { Livestream } from '../../core/livestream/livestream.js';
import { redactUrlsIn, type Audience } from '../../core/sources/public-url.js';
import { publicRecord } from '../../core/workflow/public-record.js';
import type { LivestreamDetails, LivestreamRecord } from './record.schema.js';

/** A record as history, queue and video answer it, and as the search index holds it (see publicRecord, which webhook events carry too). */
export function presentRecord(livestream: Livestream, publicUrl: string, audience: Audience): LivestreamRecord {
  return publicRecord(livestream, publicUrl, audience);
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
