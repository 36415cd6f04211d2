// Decisions: docs/decisions/0011-import.md
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { CHANNEL_ID_MAX_LENGTH } from '../vocabulary.js';
import { AppError } from '../errors.js';
import { youtubeWatchUrl, type LivestreamInput } from './livestream.js';
import { LIVESTREAM_ID_PATTERN, LIVESTREAM_STATUSES, PLATFORMS, type LivestreamStatus } from '../vocabulary.js';
import { neverLiveDeadline, neverLiveReason } from './lifecycle.js';
import type { LivestreamRepo } from './ports.js';
import { declaredBytes, MAX_STORABLE_BYTES, unstorableProblems } from './import-storable.js';
import { IMPORT_SUBMITTER_PATTERN, importedSubmitter, parseBaseUrl, RELATIVE_URL_PATTERN, resolveDownloadUrl } from './original-export.js';

/** One import file holds at most this many records. */
export const IMPORT_MAX_RECORDS = 1_000_000;
/** Problems listed in one error before the rest are counted. */
const MAX_REPORTED_PROBLEMS = 20;

const Count = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d{1,15}$' })], {
  description: 'a whole number of 0 or more (a string of digits is accepted, as older instances served them)',
});
const Timestamp = Type.String({ format: 'date-time', description: 'an ISO 8601 date-time' });
const HttpUrl = Type.String({ pattern: '^https?://\\S+$', maxLength: 2048 });

/**
 * A record in the `/api/history` shape, as an instance of the original interface returns it: its
 * download URL may be relative to that instance, its submitters bare values (see original-export.ts).
 */
export const ImportRecordSchema = Type.Object({
  id: Type.String({ pattern: LIVESTREAM_ID_PATTERN }),
  submitters: Type.Optional(Type.Array(Type.String({ pattern: IMPORT_SUBMITTER_PATTERN }), { maxItems: 10_000 })),
  scheduledStart: Timestamp,
  finished: Type.Boolean(),
  title: Type.String({ maxLength: 1000 }),
  channelName: Type.String({ maxLength: 1000 }),
  channelId: Type.String({ maxLength: CHANNEL_ID_MAX_LENGTH }),
  thumbnail: Type.Optional(Type.Union([Type.Literal(''), HttpUrl, Type.Null()])),
  downloadUrl: Type.Optional(Type.Union([HttpUrl, Type.String({ pattern: RELATIVE_URL_PATTERN, maxLength: 2048 }), Type.Literal(''), Type.Null()])),
  fileSizeBytes: Type.Optional(Type.Union([Count, Type.Null()])),
  length: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1e9 }), Type.String({ pattern: '^\\d{1,9}(\\.\\d+)?$' }), Type.Null()])),
  status: Type.Optional(Type.Enum(LIVESTREAM_STATUSES)),
  platform: Type.Optional(Type.Enum(PLATFORMS)),
  sourceUrl: Type.Optional(HttpUrl),
  startedAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  endedAt: Type.Optional(Type.Union([Timestamp, Type.Null()])),
});
type ImportRecord = Static<typeof ImportRecordSchema>;

const validator = Compile(ImportRecordSchema);

/**
 * Validates a parsed import file and writes it all-or-nothing. With `deadline`, an upcoming record
 * past the never-live deadline submitted ones have (WatchPolicy.neverLiveSeconds after its
 * scheduled start) is written `failed` with the reason, as the watch would have failed it; the
 * others are watched once the lifecycle sweep finds them. Relative download URLs are resolved
 * against `baseUrl` (the instance the file came from). Throws `invalid_import` naming each bad
 * record's index and field.
 */
export async function importLivestreams(
  deps: { livestreams: LivestreamRepo },
  file: unknown,
  deadline?: { now: Date; neverLiveSeconds: number },
  baseUrl?: string,
): Promise<{ inserted: number; updated: number }> {
  const records = parseImportFile(file, baseUrl);
  if (deadline !== undefined) {
    for (const record of records) {
      if (record.status === 'upcoming' && deadline.now > neverLiveDeadline(record.scheduledStart, deadline.neverLiveSeconds)) {
        record.status = 'failed';
        record.failureReason = neverLiveReason(deadline.neverLiveSeconds, 'imported as upcoming after its deadline');
      }
    }
  }
  return deps.livestreams.upsertMany(records);
}

/** Turns the file's JSON into records, or throws `invalid_import` listing what is wrong where. */
export function parseImportFile(file: unknown, baseUrl?: string): LivestreamInput[] {
  if (baseUrl !== undefined && parseBaseUrl(baseUrl) === null) throw invalid([`the base URL "${baseUrl}" is not an http(s) URL`]);
  if (!Array.isArray(file)) throw invalid(['the file must hold a JSON array of records']);
  if (file.length > IMPORT_MAX_RECORDS) {
    throw invalid([`the file holds ${file.length} records; one import takes at most ${IMPORT_MAX_RECORDS}`]);
  }
  const problems: string[] = [];
  const records: LivestreamInput[] = [];
  const firstIndexOfId = new Map<string, number>();
  let declaredTotal = 0;
  let totalRefused = false;
  file.forEach((raw: unknown, index) => {
    const where = recordLabel(raw, index);
    const recordProblems = problemsOf(raw);
    if (recordProblems.length > 0) {
      problems.push(...recordProblems.map((p) => `${where}: ${p}`));
      return;
    }
    const downloadUrl = resolveDownloadUrl((raw as ImportRecord).downloadUrl ?? '', baseUrl);
    if ('problem' in downloadUrl) {
      problems.push(`${where}: ${downloadUrl.problem}`);
      return;
    }
    // the totals (/api/stats, each channel's) add every size up: the file's sum must fit too
    declaredTotal += declaredBytes(raw as ImportRecord);
    if (declaredTotal > MAX_STORABLE_BYTES && !totalRefused) {
      problems.push(`${where}: fileSizeBytes brings the file's total size past ${MAX_STORABLE_BYTES} bytes, more than Kura can count`);
      totalRefused = true;
      return;
    }
    const record = toInput(raw as ImportRecord, downloadUrl.url || null);
    const earlier = firstIndexOfId.get(record.id);
    if (earlier !== undefined) {
      problems.push(`${where}: the id already appears at record ${earlier}`);
      return;
    }
    firstIndexOfId.set(record.id, index);
    records.push(record);
  });
  if (problems.length > 0) throw invalid(problems);
  return records;
}

/** `record 3 (id "abc")`: where a problem is, by the record's index in the file and, when it has one, its id. */
function recordLabel(raw: unknown, index: number): string {
  const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
  if (typeof id !== 'string') return `record ${index}`;
  return `record ${index} (id ${JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id)})`;
}

function problemsOf(raw: unknown): string[] {
  if (validator.Check(raw)) return [...unstorableProblems(raw), ...consistencyProblems(raw)];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return ['must be a JSON object'];
  const byField = new Map<string, string>();
  for (const error of validator.Errors(raw)) {
    const field =
      error.instancePath.replace(/^\//, '').replace(/\//g, '.') ||
      (error.params as { requiredProperties?: string[] }).requiredProperties?.join(', ') ||
      '(record)';
    if (!byField.has(field)) byField.set(field, describe(error.keyword, error.message));
  }
  return [...byField].map(([field, message]) => `${field} ${message}`);
}

function describe(keyword: string, message: string): string {
  return keyword === 'required' ? 'is required' : message;
}

function consistencyProblems(record: ImportRecord): string[] {
  const problems: string[] = [];
  if (record.status !== undefined && (record.status === 'finished') !== record.finished) {
    problems.push(`status "${record.status}" contradicts finished: ${record.finished}`);
  }
  // only a YouTube record's URL follows from its id
  if (record.platform !== undefined && record.platform !== 'youtube' && record.sourceUrl === undefined)
    problems.push(`sourceUrl is required for platform "${record.platform}"`);
  return problems;
}

/** A size or length, or null: none given, or the 0 the original interface gave an unfinished record. */
function measure(value: number | string | null | undefined, finished: boolean): number | null {
  if (value === undefined || value === null) return null;
  return !finished && Number(value) === 0 ? null : Number(value);
}

function toInput(record: ImportRecord, downloadUrl: string | null): LivestreamInput {
  const status: LivestreamStatus = record.status ?? (record.finished ? 'finished' : 'upcoming');
  const platform = record.platform ?? 'youtube';
  const size = measure(record.fileSizeBytes, record.finished);
  const length = measure(record.length, record.finished);
  const hasArchive = size !== null || downloadUrl !== null;
  return {
    id: record.id,
    platform,
    sourceUrl: record.sourceUrl ?? youtubeWatchUrl(record.id),
    status,
    failureReason: status === 'failed' ? 'Imported as failed.' : null,
    title: record.title,
    channelName: record.channelName,
    channelId: record.channelId,
    thumbnailUrl: record.thumbnail || null,
    scheduledStart: new Date(record.scheduledStart),
    startedAt: record.startedAt ? new Date(record.startedAt) : null,
    endedAt: record.endedAt ? new Date(record.endedAt) : null,
    archive: hasArchive
      ? {
          fileSizeBytes: size ?? 0,
          lengthSeconds: Math.round(length ?? 0),
          videoKey: null,
          logKey: null,
          thumbnailKey: null,
          sha256: null,
          externalUrl: downloadUrl,
        }
      : null,
    submitters: [...new Set((record.submitters ?? []).map(importedSubmitter))],
    requestedQuality: null,
  };
}

function invalid(problems: string[]): AppError {
  const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
  const more = problems.length - shown.length;
  const lines = more > 0 ? [...shown, `…and ${more} more problems`] : shown;
  return new AppError('invalid', 'invalid_import', `Nothing was imported:\n${lines.join('\n')}`);
}
