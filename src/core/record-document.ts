import type { Livestream } from './livestream.js';
import type { RecordDocument } from './search.js';

/**
 * The one way a record is shown: as history, queue and video answer it, and as the search index
 * holds it. URLs are absolute, built from the public base URL.
 */
export function toRecordDocument(livestream: Livestream, publicUrl: string): RecordDocument {
  const { archive } = livestream;
  const record: RecordDocument = {
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
    sourceUrl: livestream.sourceUrl,
    startedAt: livestream.startedAt?.toISOString() ?? null,
    endedAt: livestream.endedAt?.toISOString() ?? null,
  };
  const downloadUrl = archive?.videoKey ? downloadPath(publicUrl, livestream.id, 'video') : archive?.externalUrl;
  if (archive !== null && downloadUrl) {
    record.downloadUrl = downloadUrl;
    record.fileSizeBytes = archive.fileSizeBytes;
    record.length = archive.lengthSeconds;
  }
  if (archive?.videoKey) record.integrity = livestream.integrity?.state ?? null;
  return record;
}

function thumbnailUrl(livestream: Livestream, publicUrl: string): string {
  if (livestream.archive?.thumbnailKey) return downloadPath(publicUrl, livestream.id, 'thumbnail');
  return livestream.thumbnailUrl ?? '';
}

function downloadPath(publicUrl: string, id: string, type: 'video' | 'thumbnail'): string {
  return `${publicUrl}/api/download/${encodeURIComponent(id)}/${type}`;
}
