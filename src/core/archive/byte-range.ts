// Decisions: docs/decisions/0041-downloads-and-encoder-log.md
/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Parses a single-range `Range: bytes=…` header against a size: undefined when absent or not a
 * bytes range (serve it all), 'unsatisfiable' when it cannot be served (416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return header.trim().startsWith('bytes=') ? 'unsatisfiable' : undefined;
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return 'unsatisfiable';
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
