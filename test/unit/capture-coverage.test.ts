import { describe, expect, it } from 'vitest';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ChunkSpan, StoredChunk } from '../../src/core/capture/capture.js';
import { keptRecording, readableEnds, readPlan, resumePlan, runOf, storedPart, type ChunkRead } from '../../src/core/capture/coverage.js';
import type { SizedLocalChunk } from '../../src/core/capture/ports.js';

// The tables below write chunks as labels: `S1:0-100` is a stored chunk of part 1 holding bytes
// [0, 100), `L1:100-180` a local chunk (a file in the spool) of part 1 holding bytes [100, 180);
// a chunk layout lists them in the order the store and the spool would. Every row is a test.

/** The rows of a text table: its first line names the columns, `|` separates the cells (trimmed). */
function table(text: string): Array<Record<string, string>> {
  const [head, ...rows] = text
    .trim()
    .split('\n')
    .map((line) => line.split('|').map((cell) => cell.trim()));
  return rows.map((cells) => Object.fromEntries((head as string[]).map((name, i) => [name, cells[i] ?? ''])));
}

/** The chunks of a layout, stored and local, each in the order the layout lists them. */
function layout(labels: string): { stored: StoredChunk[]; local: SizedLocalChunk[] } {
  const stored: StoredChunk[] = [];
  const local: SizedLocalChunk[] = [];
  for (const label of labels.split(' ').filter(Boolean)) {
    const [, where, part, start, end] = /^([SL])(\d+):(\d+)-(\d+)$/.exec(label) as RegExpExecArray;
    const span = { part: Number(part), startOffset: Number(start), endOffset: Number(end) };
    if (where === 'S') stored.push({ ...span, key: objectKeys.captureChunk('rec', span.part, span.startOffset, `n${stored.length}`) });
    else local.push({ ...span, path: `/data/spool/rec/part-${part}-at-${start}` });
  }
  return { stored, local };
}

/** The labels of chunks, in order. */
function labels(chunks: readonly ChunkSpan[]): string {
  return chunks.map((c) => `${'key' in c ? 'S' : 'L'}${c.part}:${c.startOffset}-${c.endOffset}`).join(' ');
}

/** A read plan as `S1:0-100@10+20` (20 bytes of that chunk from its byte 10), in order; `null` for none. */
function reads(plan: ReadonlyArray<ChunkRead<ChunkSpan>> | null): string {
  return plan === null ? 'null' : plan.map((read) => `${labels([read.chunk])}@${read.offset}+${read.length}`).join(' ');
}

/** `2:200`: part 2, byte 200 (also a part of 200 bytes). */
function partAt(cell: string): { part: number; offset: number } {
  const [part, offset] = cell.split(':').map(Number) as [number, number];
  return { part, offset };
}

/** Parts as `1:200 2:50` (part 1 of 200 bytes, part 2 of 50). */
function parts(cell: string): Array<{ part: number; bytes: number }> {
  return cell
    .split(' ')
    .filter(Boolean)
    .map((p) => ({ part: partAt(p).part, bytes: partAt(p).offset }));
}

const RUNS = table(`
  case                                                    | chunks                         | part | length | run                          | end
  no chunk at all                                         |                                | 1    |        |                              | 0
  a single stored chunk                                   | S1:0-100                       | 1    |        | S1:0-100                     | 100
  a single local chunk (nothing uploaded yet)             | L1:0-100                       | 1    |        | L1:0-100                     | 100
  a gap at the start                                      | S1:10-100                      | 1    |        |                              | 0
  a gap in the middle                                     | S1:0-100 S1:150-200            | 1    |        | S1:0-100                     | 100
  a gap at the end, short of the length                   | S1:0-100                       | 1    | 150    | S1:0-100                     | 100
  several stored chunks                                   | S1:0-100 S1:100-200 S1:200-250 | 1    |        | S1:0-100 S1:100-200 S1:200-250 | 250
  chunks listed out of order                              | S1:100-200 S1:0-100            | 1    |        | S1:0-100 S1:100-200          | 200
  an overlapping chunk, left out; the next one joins      | S1:0-100 S1:50-150 S1:100-200  | 1    |        | S1:0-100 S1:100-200          | 200
  only an overlapping chunk after the first               | S1:0-100 S1:50-150             | 1    |        | S1:0-100                     | 100
  a duplicate chunk, joined once                          | S1:0-100 S1:0-100 S1:100-200   | 1    |        | S1:0-100 S1:100-200          | 200
  an empty chunk, left out                                | S1:0-0 S1:0-100                | 1    |        | S1:0-100                     | 100
  an empty local chunk just opened at the end             | S1:0-100 L1:100-100            | 1    |        | S1:0-100                     | 100
  stored chunks, then the local ones after them           | S1:0-100 L1:100-180            | 1    |        | S1:0-100 L1:100-180          | 180
  local chunks listed before the stored ones              | L1:100-150 S1:0-100            | 1    |        | S1:0-100 L1:100-150          | 150
  a local leftover at a stored chunk's offset: the stored | S1:0-100 L1:0-100 L1:100-150   | 1    |        | S1:0-100 L1:100-150          | 150
  a local leftover longer than the stored chunk           | S1:0-100 L1:0-120              | 1    |        | S1:0-100                     | 100
  a stored chunk after local ones: never joined           | L1:0-100 S1:100-200            | 1    |        | L1:0-100                     | 100
  the chunks of other parts, left out                     | S2:0-100 S1:0-50 L3:50-90      | 1    |        | S1:0-50                      | 50
  a second part                                           | S1:0-100 S2:0-70 L2:70-90      | 2    |        | S2:0-70 L2:70-90             | 90
  the length reached: no chunk joins                      | S1:0-100 S1:100-200            | 1    | 100    | S1:0-100                     | 100
  the last chunk reaching past the length                 | S1:0-100 L1:100-180            | 1    | 150    | S1:0-100 L1:100-180          | 180
`);

describe("a part's run of chunks from byte 0", () => {
  it.each(RUNS)('$case: $chunks → $run', (row) => {
    const { stored, local } = layout(row.chunks as string);
    const found = runOf(Number(row.part), stored, local, row.length === '' ? undefined : Number(row.length));
    expect(labels(found.chunks)).toBe(row.run);
    expect(found.end).toBe(Number(row.end));
  });

  it('leaves the lists it is given as they were', () => {
    const { stored, local } = layout('S1:100-200 S1:0-100 L1:250-300 L1:200-250');
    runOf(1, stored, local);
    expect(labels([...stored, ...local])).toBe('S1:100-200 S1:0-100 L1:250-300 L1:200-250');
  });
});

const READABLE = table(`
  case                                              | chunks                           | readable
  nothing recorded                                  |                                  |
  two parts, stored and local                       | S1:0-100 L1:100-150 S2:0-40      | 1:150 2:40
  a part with no byte 0, absent                     | S1:0-100 L2:10-50                | 1:100
  a part holding only an empty local chunk, absent  | S1:0-100 L2:0-0                  | 1:100
  a part stopping at a hole                         | S1:0-100 L1:120-150 L2:0-10      | 1:100 2:10
`);

describe('how many bytes of each part can be read', () => {
  it.each(READABLE)('$case: $chunks → $readable', (row) => {
    const { stored, local } = layout(row.chunks as string);
    const ends = [...readableEnds(stored, local)].map(([part, end]) => `${part}:${end}`);
    expect(ends.sort().join(' ')).toBe(row.readable);
  });
});

const READS = table(`
  case                              | run                            | range   | plan
  within one chunk                  | S1:0-100 S1:100-200 L1:200-300 | 10-19   | S1:0-100@10+10
  one whole chunk                   | S1:0-100 S1:100-200 L1:200-300 | 100-199 | S1:100-200@0+100
  across several chunks             | S1:0-100 S1:100-200 L1:200-300 | 50-249  | S1:0-100@50+50 S1:100-200@0+100 L1:200-300@0+50
  every byte                        | S1:0-100 S1:100-200 L1:200-300 | 0-299   | S1:0-100@0+100 S1:100-200@0+100 L1:200-300@0+100
  one byte at a chunk boundary      | S1:0-100 S1:100-200 L1:200-300 | 100-100 | S1:100-200@0+1
  the last byte before a boundary   | S1:0-100 S1:100-200 L1:200-300 | 99-99   | S1:0-100@99+1
  up to the run's last byte         | S1:0-100 S1:100-200 L1:200-300 | 250-299 | L1:200-300@50+50
  one byte past the run's end       | S1:0-100 S1:100-200 L1:200-300 | 250-300 | null
  starting past the run's end       | S1:0-100 S1:100-200 L1:200-300 | 300-310 | null
  an empty range: no read           | S1:0-100 S1:100-200 L1:200-300 | 100-99  |
  an empty run                      |                                | 0-0     | null
  chunks with a hole (not a run)    | S1:0-100 S1:150-200            | 50-160  | null
  a single chunk                    | L2:0-40                        | 0-39    | L2:0-40@0+40
`);

describe('the read plan of a range of a part', () => {
  it.each(READS)('$case: bytes $range of $run → $plan', (row) => {
    const { stored, local } = layout(row.run as string);
    const [start, end] = (row.range as string).split('-').map(Number) as [number, number];
    expect(reads(readPlan([...stored, ...local], { start, end }))).toBe(row.plan);
  });

  it('refuses a range starting before byte 0', () => {
    expect(readPlan(layout('S1:0-100').stored, { start: -1, end: 10 })).toBeNull();
  });
});

/** Where a store keeps a chunk on this machine: an fs store under its folder, an S3 one nowhere. */
const STORES: Record<string, (key: string) => string | null> = { fs: (key) => `/data/archive/${key}`, s3: () => null };

const STORED_PARTS = table(`
  case                                                  | store | part  | chunks                    | run                 | first | files
  an fs store, chunks ending at the part's end          | fs    | 1:200 | S1:0-100 S1:100-200       | S1:0-100 S1:100-200 | 100   | yes
  an S3 store: no local files                           | s3    | 1:200 | S1:0-100 S1:100-200       | S1:0-100 S1:100-200 | 100   | no
  a single chunk                                        | fs    | 1:80  | S1:0-80                   | S1:0-80             | 80    | yes
  the last chunk past the part's end: read from store   | fs    | 1:150 | S1:0-100 S1:100-200       | S1:0-100 S1:100-200 | 100   | no
  more chunks than the part needs                       | fs    | 1:100 | S1:0-100 S1:100-200       | S1:0-100            | 100   | yes
  an empty first chunk, left out                        | fs    | 1:100 | S1:0-0 S1:0-60 S1:60-100  | S1:0-60 S1:60-100   | 60    | yes
  the chunks of another part                            | s3    | 2:50  | S1:0-100 S2:0-50          | S2:0-50             | 50    | no
`);

const SHORT_PARTS = table(`
  case                  | store | part  | chunks               | stored up to
  a gap in the middle   | fs    | 1:200 | S1:0-100 S1:150-200  | 100
  a gap at the start    | fs    | 1:100 | S1:10-100            | 0
  a gap at the end      | s3    | 1:300 | S1:0-100 S1:100-200  | 200
  no chunk              | s3    | 2:100 |                      | 0
`);

describe('how finalize reads a part from its stored chunks', () => {
  it.each(STORED_PARTS)('$case: part $part in $chunks ($store) → $run', (row) => {
    const found = storedPart(parts(row.part as string)[0]!, layout(row.chunks as string).stored, STORES[row.store as string]!);
    expect(labels(found.chunks)).toBe(row.run);
    expect(found.firstChunkBytes).toBe(Number(row.first));
    expect(found.files).toEqual(row.files === 'yes' ? found.chunks.map((chunk) => `/data/archive/${chunk.key}`) : null);
  });

  it.each(SHORT_PARTS)('$case: part $part in $chunks ($store) is refused', (row) => {
    const part = parts(row.part as string)[0]!;
    const refused = `part ${part.part} is stored up to byte ${row['stored up to']} of ${part.bytes}: its chunks are missing`;
    expect(() => storedPart(part, layout(row.chunks as string).stored, STORES[row.store as string]!)).toThrow(refused);
  });
});

const KEPT = table(`
  case                                             | parts       | chunks                                | kept                  | short of
  nothing recorded                                 |             | L1:0-50                               |                       |
  every byte stored                                | 1:200       | S1:0-100 S1:100-200                   |                       |
  local chunks after the stored ones               | 1:200       | S1:0-100 L1:100-200                   | L1:100-200            |
  bytes written past the last segment, cut         | 1:200       | S1:0-100 L1:100-250                   | L1:100-200            |
  the local chunks lost with a disk                | 1:200       | S1:0-100                              |                       | 1:100
  nothing at all left                              | 1:200       |                                       |                       | 1:0
  a hole before a local chunk                      | 1:200       | S1:0-100 L1:150-200                   |                       | 1:100
  a local leftover of a stored chunk               | 1:150       | S1:0-100 L1:0-100 L1:100-150          | L1:100-150            |
  an empty local chunk at the end                  | 1:100       | S1:0-100 L1:100-100                   |                       |
  a stored chunk reaching past the length          | 1:100       | S1:0-130                              |                       |
  bytes past an earlier part's end, not kept       | 1:100 2:50  | S1:0-100 L1:100-130 S2:0-50           |                       |
  the second part short: the first's local kept    | 1:100 2:300 | S1:0-60 L1:60-100 S2:0-100 L2:100-200 | L1:60-100 L2:100-200  | 2:200
  the first part short: later parts not kept       | 1:100 2:100 | S1:0-50 L2:0-100                      |                       | 1:50
  parts listed out of order                        | 2:100 1:100 | S1:0-50 L2:0-100                      |                       | 1:50
  a part with no recorded segment                  | 1:100       | S1:0-100 L2:0-40                      |                       |
`);

describe('what of a recording still exists when its capture resumes', () => {
  it.each(KEPT)('$case: parts $parts in $chunks → kept $kept', (row) => {
    const { stored, local } = layout(row.chunks as string);
    const found = keptRecording(parts(row.parts as string), stored, local);
    expect(labels(found.kept)).toBe(row.kept);
    expect(found.shortOf).toEqual(row['short of'] === '' ? null : partAt(row['short of'] as string));
  });
});

const RESUMES = table(`
  case                                         | kept                  | local                 | at    | in use                | upload     | append to  | delete
  nothing on disk                              |                       |                       | 1:0   |                       |            |            |
  the last kept chunk ends at the offset       | L1:100-200            | L1:100-250            | 1:200 | L1:100-200            |            | L1:100-200 |
  rewound inside the last kept chunk: cut      | L1:100-200            | L1:100-200            | 1:150 | L1:100-150            |            | L1:100-150 |
  earlier chunks uploaded                      | L1:100-200 L1:200-300 | L1:100-200 L1:200-300 | 1:300 | L1:100-200 L1:200-300 | L1:100-200 | L1:200-300 |
  a kept chunk starting at the offset: deleted | L1:100-200 L1:200-300 | L1:100-200 L1:200-300 | 1:200 | L1:100-200            |            | L1:100-200 | L1:200-300
  an earlier part uploaded, a new part afresh  | L1:60-100             | L1:60-100 L2:0-30     | 2:0   | L1:60-100             | L1:60-100  |            | L2:0-30
  rewound into an earlier part                 | L1:50-100             | L1:50-100 L2:0-80     | 1:80  | L1:50-80              |            | L1:50-80   | L2:0-80
  local chunks not kept: deleted               |                       | L1:150-200            | 1:100 |                       |            |            | L1:150-200
`);

describe('what a resumed capture does with its local chunks', () => {
  it.each(RESUMES)('$case: $kept kept at $at', (row) => {
    const plan = resumePlan(layout(row.kept as string).local, layout(row.local as string).local, partAt(row.at as string));
    expect(labels(plan.inUse)).toBe(row['in use']);
    expect(labels(plan.toUpload)).toBe(row.upload);
    expect(plan.appendTo === null ? '' : labels([plan.appendTo])).toBe(row['append to']);
    expect(labels(plan.toDelete)).toBe(row.delete);
  });
});
