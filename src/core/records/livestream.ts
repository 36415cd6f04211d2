import type { IntegrityFlag, LivestreamStatus, Platform } from '../vocabulary.js';

/** The stored archive of a record, as measured from the stored file. */
export interface ArchiveFacts {
  fileSizeBytes: number;
  lengthSeconds: number;
  videoKey: string | null;
  logKey: string | null;
  thumbnailKey: string | null;
  sha256: string | null;
  /** An archive kept outside this instance (imported catalogues), served as is. */
  externalUrl: string | null;
}

export interface Livestream {
  id: string;
  platform: Platform;
  sourceUrl: string;
  status: LivestreamStatus;
  failureReason: string | null;
  title: string;
  channelName: string;
  channelId: string;
  thumbnailUrl: string | null;
  scheduledStart: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  archive: ArchiveFacts | null;
  downloadCount: number;
  /** What the last verification of the stored archive found; null until one ran (or nothing is stored here). */
  integrity: IntegrityFlag | null;
  /** Quality code asked for at submission (e.g. `720p`); null means the best. */
  requestedQuality: string | null;
  /** In submission order, as `provider/userId`. */
  submitters: string[];
  /** A takedown asked while the record was recorded, waiting for its capture to end (0024); null otherwise. */
  takedown: PendingTakedown | null;
  /** Pinned by an admin: kept whatever the retention rules say (0077). */
  pinned: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Who asked to take a record down, why and when: kept until a worker removes the record. */
export interface PendingTakedown {
  /** The admin, as `provider/userId`. */
  admin: string;
  reason: string;
  requestedAt: Date;
}

/** What an import or a submission writes; the database fills the rest. */
export type LivestreamInput = Omit<Livestream, 'downloadCount' | 'integrity' | 'takedown' | 'pinned' | 'createdAt' | 'updatedAt'>;

export function youtubeWatchUrl(videoId: string): string {
  return `https://www.youtube.com/watch?v=${videoId}`;
}

/** The fields of a record a write changes (the lifecycle's moves and a source's details); the rest stay. */
export interface LivestreamChange {
  status?: LivestreamStatus;
  failureReason?: string | null;
  startedAt?: Date;
  endedAt?: Date;
  scheduledStart?: Date;
  title?: string;
  channelName?: string;
  thumbnailUrl?: string | null;
  archive?: { fileSizeBytes: number; lengthSeconds: number; videoKey: string; logKey: string; thumbnailKey: string | null; sha256: string };
}
