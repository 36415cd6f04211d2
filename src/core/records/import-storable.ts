// Decisions: docs/decisions/0011-import.md
/**
 * The values of an import file PostgreSQL would refuse (or store altered): each is found before
 * anything is written, so the whole import fails with the record and field named rather than with
 * the database's words about a row nobody can find.
 */

/** The largest size a record or a whole file may declare: what a JSON number (and /api/stats) holds exactly, and far below bigint's 2⁶³. */
export const MAX_STORABLE_BYTES = Number.MAX_SAFE_INTEGER;

/** The longest source URL, in UTF-8 bytes: it is indexed, and a btree entry holds at most 2,704 bytes. */
const MAX_SOURCE_URL_BYTES = 2048;

/** The dates a timestamptz takes as Kura writes it (a four-digit ISO year; PostgreSQL has no year 0). */
const FIRST_STORABLE_DATE = Date.parse('0001-01-01T00:00:00Z');
const LAST_STORABLE_DATE = Date.parse('9999-12-31T23:59:59.999Z');

const DATE_FIELDS = ['scheduledStart', 'startedAt', 'endedAt'] as const;
const utf8 = new TextEncoder();

/**
 * A NUL (PostgreSQL's text cannot hold one) or half of a surrogate pair (UTF-8 has no such
 * character: it would be stored altered).
 */
// eslint-disable-next-line no-control-regex -- the NUL is what is looked for
const UNSTORABLE_CHARACTER = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The record fields this module judges, as the import schema has already typed them. */
interface StorableFields {
  scheduledStart: string;
  startedAt?: string | null;
  endedAt?: string | null;
  fileSizeBytes?: number | string | null;
  sourceUrl?: string;
}

/** Every value of a schema-valid record the database cannot store as given, each naming its field. */
export function unstorableProblems(record: StorableFields): string[] {
  return [...characterProblems(record), ...dateProblems(record), ...sizeProblems(record)];
}

/** A record's declared size as a number (0 when it declares none), for the file's total. */
export function declaredBytes(record: StorableFields): number {
  return record.fileSizeBytes === undefined || record.fileSizeBytes === null ? 0 : Number(record.fileSizeBytes);
}

/** Every string field (each submitter too) holding a character the database cannot store, named with its position. */
function characterProblems(record: object): string[] {
  const strings = Object.entries(record).flatMap(([field, value]): Array<[string, unknown]> =>
    Array.isArray(value) ? value.map((item, i) => [`${field}.${i}`, item]) : [[field, value]],
  );
  return strings.flatMap(([field, value]) => {
    const found = typeof value === 'string' ? UNSTORABLE_CHARACTER.exec(value) : null;
    if (found === null) return [];
    const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return [`${field} holds a character the database cannot store (U+${code} at position ${found.index})`];
  });
}

function dateProblems(record: StorableFields): string[] {
  return DATE_FIELDS.flatMap((field) => {
    const value = record[field];
    if (value === undefined || value === null) return [];
    const time = Date.parse(value);
    if (Number.isNaN(time)) return [`${field} ${value} is not an instant Kura can store (a leap second, 23:59:60, has none)`];
    if (time < FIRST_STORABLE_DATE || time > LAST_STORABLE_DATE) {
      return [`${field} ${value} is outside the dates Kura can store (0001-01-01 to 9999-12-31 UTC)`];
    }
    return [];
  });
}

function sizeProblems(record: StorableFields): string[] {
  const problems: string[] = [];
  if (declaredBytes(record) > MAX_STORABLE_BYTES) {
    problems.push(`fileSizeBytes ${String(record.fileSizeBytes)} is more than Kura can store (at most ${MAX_STORABLE_BYTES})`);
  }
  const sourceUrlBytes = record.sourceUrl === undefined ? 0 : utf8.encode(record.sourceUrl).length;
  if (sourceUrlBytes > MAX_SOURCE_URL_BYTES) {
    problems.push(`sourceUrl is ${sourceUrlBytes} bytes long in UTF-8; Kura stores at most ${MAX_SOURCE_URL_BYTES}`);
  }
  return problems;
}
