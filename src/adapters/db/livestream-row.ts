import type { Integrity } from '../../core/vocabulary.js';
import type { Livestream } from '../../core/records/livestream.js';
import type { LivestreamStatus, Platform } from '../../core/vocabulary.js';

/** The columns every record read selects, from `livestreams l`. */
export const RECORD_COLUMNS = `
  l.id, l.platform, l.source_url, l.status, l.failure_reason, l.title, l.channel_name, l.channel_id,
  l.thumbnail_url, l.scheduled_start_at, l.started_at, l.ended_at, l.file_size_bytes, l.length_seconds,
  l.video_key, l.log_key, l.thumbnail_key, l.sha256, l.external_archive_url,
  coalesce((select d.count from livestream_downloads d where d.livestream_id = l.id), 0) as download_count,
  l.created_at, l.updated_at, l.requested_quality, l.integrity,
  l.takedown_admin, l.takedown_reason, l.takedown_requested_at, l.pinned,
  (select c.verified_at from archive_checks c where c.livestream_id = l.id) as verified_at,
  array(select s.provider || '/' || s.user_id from livestream_submitters s
        where s.livestream_id = l.id order by s.id) as submitters`;

export interface LivestreamRow {
  id: string;
  platform: Platform;
  source_url: string;
  status: LivestreamStatus;
  failure_reason: string | null;
  title: string;
  channel_name: string;
  channel_id: string;
  thumbnail_url: string | null;
  scheduled_start_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  file_size_bytes: number | null;
  length_seconds: number | null;
  video_key: string | null;
  log_key: string | null;
  thumbnail_key: string | null;
  sha256: string | null;
  external_archive_url: string | null;
  download_count: number;
  created_at: Date;
  updated_at: Date;
  requested_quality: string | null;
  integrity: Integrity | null;
  verified_at: Date | null;
  takedown_admin: string | null;
  takedown_reason: string | null;
  takedown_requested_at: Date | null;
  /** Migration 0024; absent in a webhook snapshot of a row from before it. */
  pinned?: boolean;
  submitters: string[];
}

/** A selected row as the core's record. */
export function toLivestream(row: LivestreamRow): Livestream {
  const hasArchive = row.file_size_bytes !== null || row.video_key !== null || row.external_archive_url !== null;
  return {
    id: row.id,
    platform: row.platform,
    sourceUrl: row.source_url,
    status: row.status,
    failureReason: row.failure_reason,
    title: row.title,
    channelName: row.channel_name,
    channelId: row.channel_id,
    thumbnailUrl: row.thumbnail_url,
    scheduledStart: row.scheduled_start_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    archive: hasArchive
      ? {
          fileSizeBytes: row.file_size_bytes ?? 0,
          lengthSeconds: row.length_seconds ?? 0,
          videoKey: row.video_key,
          logKey: row.log_key,
          thumbnailKey: row.thumbnail_key,
          sha256: row.sha256,
          externalUrl: row.external_archive_url,
        }
      : null,
    downloadCount: row.download_count,
    integrity: row.integrity !== null && row.verified_at !== null ? { state: row.integrity, verifiedAt: row.verified_at } : null,
    requestedQuality: row.requested_quality,
    submitters: row.submitters,
    takedown:
      row.takedown_requested_at === null
        ? null
        : { admin: row.takedown_admin as string, reason: row.takedown_reason as string, requestedAt: row.takedown_requested_at },
    pinned: row.pinned ?? false,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
