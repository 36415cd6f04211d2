import type { Integrity } from '../vocabulary.js';

/** An archive Kura stores (its video object), as a verification sees it. */
export interface StoredArchive {
  id: string;
  videoKey: string;
  fileSizeBytes: number;
  /** Null when unknown (only the size can be checked then). */
  sha256: string | null;
  integrity: Integrity | null;
}

/** Stored archives by integrity; `unverified`: never checked. */
export type IntegrityCounts = Record<Integrity | 'unverified', number>;

/** Verification bookkeeping in the database. Archives kept outside (external URLs) are never listed. */
export interface ArchiveCheckRepo {
  find(id: string): Promise<StoredArchive | null>;
  /** Stored archives not checked since `before`, the ones checked longest ago (never first) first. */
  leastRecentlyChecked(before: Date, limit: number): Promise<StoredArchive[]>;
  /** Stored archives with a sha256 not hashed since `before`, the ones hashed longest ago (never first) first. */
  leastRecentlyHashed(before: Date, limit: number): Promise<StoredArchive[]>;
  /** Every stored archive in id order, after `afterId` (paging). */
  page(afterId: string, limit: number): Promise<StoredArchive[]>;
  /**
   * Notes a check of `archive` made at `at`, and its finding on the record; nothing when the record
   * no longer holds that object (taken down or re-archived meanwhile).
   */
  record(archive: StoredArchive, finding: { integrity: Integrity; at: Date; hashed: boolean }): Promise<void>;
  counts(): Promise<IntegrityCounts>;
}
