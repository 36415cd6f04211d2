/** Records in the `/api/history` shape, as `kura import` takes them. */
export interface HistoryRecordJson {
  id: string;
  submitters: string[];
  scheduledStart: string;
  finished: boolean;
  title: string;
  channelName: string;
  channelId: string;
  thumbnail: string;
  downloadUrl?: string;
  fileSizeBytes?: number;
  length?: number;
  status?: string;
  [extra: string]: unknown;
}

/** One record; `n` makes ids, times and channels distinct and deterministic. */
export function buildRecord(overrides: Partial<HistoryRecordJson> = {}, n = 0): HistoryRecordJson {
  const finished = overrides.finished ?? true;
  const id = overrides.id ?? `rec${String(n).padStart(8, '0')}`;
  return {
    id,
    submitters: [`discord/${100_000 + (n % 977)}`],
    scheduledStart: new Date(Date.UTC(2024, 0, 1) + n * 3_600_000).toISOString(),
    finished,
    title: `Karaoke night ${n}`,
    channelName: `Channel ${n % 50}`,
    channelId: `UC${String(n % 50).padStart(22, '0')}`,
    thumbnail: `https://i.ytimg.com/vi/${id}/maxresdefault.jpg`,
    ...(finished ? { downloadUrl: `https://archive.example.org/${id}.mp4`, fileSizeBytes: 1_000_000 + n, length: 3600 + (n % 100) } : {}),
    ...overrides,
  };
}

/** `count` distinct records; every `unfinishedEvery`-th one is upcoming. */
export function buildRecords(count: number, options: { unfinishedEvery?: number; offset?: number } = {}): HistoryRecordJson[] {
  const { unfinishedEvery = 0, offset = 0 } = options;
  return Array.from({ length: count }, (_, i) => {
    const n = i + offset;
    return buildRecord({ finished: !(unfinishedEvery > 0 && n % unfinishedEvery === 0) }, n);
  });
}
