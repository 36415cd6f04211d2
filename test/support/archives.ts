import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LivestreamInput } from '../../src/core/records/livestream.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import type { LivestreamRepo } from '../../src/core/records/ports.js';

/** A finished record, as a capture leaves it, whose `archive` the caller gives (or none). */
export function finishedRecord(id: string, archive: LivestreamInput['archive'] = null): LivestreamInput {
  return {
    id,
    platform: 'hls',
    sourceUrl: `https://cdn.example/${id}/index.m3u8`,
    status: 'finished',
    failureReason: null,
    title: `Stream ${id}`,
    channelName: 'Channel',
    channelId: 'cdn.example',
    thumbnailUrl: null,
    scheduledStart: new Date('2026-01-01T00:00:00Z'),
    startedAt: null,
    endedAt: null,
    archive,
    submitters: ['local/viewer'],
    requestedQuality: null,
  };
}

/** The archive of an imported record kept outside this instance (nothing stored here). */
export function externalArchive(url = 'https://archive.example.org/x.mp4'): NonNullable<LivestreamInput['archive']> {
  return { fileSizeBytes: 5, lengthSeconds: 1, videoKey: null, logKey: null, thumbnailKey: null, sha256: null, externalUrl: url };
}

/** Puts `bytes` as the object under `key` (through the store, so fs and S3 alike). */
export async function putObject(store: ArchiveStore, key: string, bytes: Buffer): Promise<{ bytes: number; sha256: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-archive-bytes-'));
  try {
    const file = path.join(dir, 'object');
    await writeFile(file, bytes);
    const stored = await store.put(key, file, { contentType: 'video/mp4', contentDisposition: 'attachment' });
    return { bytes: stored.bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A finished record whose video (`size` random bytes) is in `store`, with the size and sha256
 * measured when it was stored, as finalize records them. Returns the bytes, to damage them with.
 */
export async function storeArchive(store: ArchiveStore, livestreams: LivestreamRepo, id: string, size = 64 * 1024): Promise<Buffer> {
  const bytes = randomBytes(size);
  const videoKey = objectKeys.video(id);
  const stored = await putObject(store, videoKey, bytes);
  await livestreams.upsertMany([
    finishedRecord(id, {
      fileSizeBytes: stored.bytes,
      lengthSeconds: 60,
      videoKey,
      logKey: null,
      thumbnailKey: null,
      sha256: stored.sha256,
      externalUrl: null,
    }),
  ]);
  return bytes;
}

/** The same bytes with one flipped in the middle: same size, another sha256. */
export function flipOneByte(bytes: Buffer): Buffer {
  const damaged = Buffer.from(bytes);
  const middle = Math.floor(damaged.length / 2);
  damaged[middle] = (damaged[middle] as number) ^ 0xff;
  return damaged;
}
