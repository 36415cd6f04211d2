import { describe, expect, it } from 'vitest';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ChatLog } from '../../src/core/chat/ports.js';
import { AppError } from '../../src/core/errors.js';
import type { Livestream } from '../../src/core/records/livestream.js';
import type { LivestreamRepo } from '../../src/core/records/ports.js';
import { openDownload, type DownloadDeps, type DownloadRequest, type Fetcher } from '../../src/core/record-actions/open-download.js';
import { externalArchive, finishedRecord } from '../support/archives.js';

const SIZE = 1000;
const PERSON: Fetcher = { receivesBytes: true, userAgent: 'Mozilla/5.0', playing: false };

/** A stored (or, with `directUrl`, object-storage) finished record, and the downloads counted of it. */
function world(options: { record?: Partial<Livestream>; directUrl?: string } = {}) {
  const id = 'rec1';
  const record: Livestream = {
    ...finishedRecord(id, {
      fileSizeBytes: SIZE,
      lengthSeconds: 1,
      videoKey: objectKeys.video(id),
      logKey: null,
      thumbnailKey: null,
      sha256: null,
      externalUrl: null,
    }),
    downloadCount: 0,
    takedown: null,
    pinned: false,
    integrity: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...options.record,
  };
  const counted: string[] = [];
  const deps: DownloadDeps = {
    livestreams: {
      findById: async (wanted: string) => (wanted === id ? record : null),
      countDownload: async (counting: string) => void counted.push(counting),
    } as unknown as LivestreamRepo,
    chats: { state: async () => null } as unknown as ChatLog,
    store: { directUrl: async () => options.directUrl ?? null, stat: async () => ({ bytes: SIZE }) },
  };
  const open = (request: Partial<DownloadRequest> = {}) => openDownload(deps, { id, type: 'video', range: undefined, fetcher: PERSON, ...request });
  return { open, counted };
}

describe('openDownload', () => {
  it('serves the stored video with its metadata, counting a person who fetches it from its start', async () => {
    const { open, counted } = world();
    expect(await open()).toMatchObject({ serve: 'object', key: objectKeys.video('rec1'), size: SIZE, range: undefined, corrupt: false });
    expect(await open({ range: 'bytes=0-99' })).toMatchObject({ serve: 'object', range: { start: 0, end: 99 } });
    expect(counted).toEqual(['rec1', 'rec1']);
  });

  it('counts no HEAD, crawler, player, or range from a later byte', async () => {
    const { open, counted } = world();
    await open({ fetcher: { ...PERSON, receivesBytes: false } });
    await open({ fetcher: { ...PERSON, userAgent: 'Googlebot/2.1' } });
    await open({ fetcher: { ...PERSON, playing: true } });
    expect(await open({ range: 'bytes=100-199' })).toMatchObject({ serve: 'object', range: { start: 100, end: 199 } });
    expect(counted).toEqual([]);
  });

  it('answers an unsatisfiable range with the size, counting nothing', async () => {
    const { open, counted } = world();
    expect(await open({ range: 'bytes=5000-' })).toEqual({ serve: 'range-not-satisfiable', size: SIZE, corrupt: false });
    expect(counted).toEqual([]);
  });

  it('redirects to object storage, counting a fetch from the start only', async () => {
    const { open, counted } = world({ directUrl: 'https://bucket.example/rec1.mp4' });
    expect(await open()).toEqual({ serve: 'redirect', url: 'https://bucket.example/rec1.mp4', corrupt: false });
    await open({ range: 'bytes=500-' });
    expect(counted).toEqual(['rec1']);
  });

  it('redirects to the URL an imported record names, counted whatever the range; refused while it is not finished', async () => {
    const imported = world({ record: { archive: externalArchive('https://archive.example.org/x.mp4') } });
    expect(await imported.open({ range: 'bytes=500-' })).toEqual({ serve: 'redirect', url: 'https://archive.example.org/x.mp4', corrupt: false });
    expect(imported.counted).toEqual(['rec1']);
    const upcoming = world({ record: { status: 'upcoming', archive: externalArchive() } });
    await expect(upcoming.open()).rejects.toMatchObject({ code: 'archive_not_ready' });
  });

  it('refuses a video found missing (410) and serves one found corrupt, saying so', async () => {
    const verifiedAt = new Date('2026-02-01T00:00:00Z');
    const missing = world({ record: { integrity: { state: 'missing', verifiedAt } } });
    const refusal = await missing.open().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ kind: 'gone', code: 'archive_missing' });
    const corrupt = world({ record: { integrity: { state: 'corrupt', verifiedAt } } });
    expect(await corrupt.open()).toMatchObject({ serve: 'object', corrupt: true });
    expect(corrupt.counted).toEqual(['rec1']);
  });

  it('refuses the chat of a finished record that has none, and an unknown record', async () => {
    const { open } = world();
    await expect(open({ type: 'chat' })).rejects.toMatchObject({ code: 'chat_not_found' });
    await expect(open({ id: 'nothing' })).rejects.toMatchObject({ code: 'livestream_not_found' });
  });
});
