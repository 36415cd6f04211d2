// Times in a recording as links, clips and chapter lines write them. The server reads the same forms with its own
// parser (src/core/time-text.ts); the page may not load server code, so these are copies,
// and test/unit/time-links.test.ts holds the two to the same answers.

/**
 * A time in a recording as people write it: seconds (`3723`, `3723.5`), a clock (`1:02:03`,
 * `62:03`) or YouTube's link form (`1h02m03s`, `2m`, `45s`). Null when it is none of these.
 */
export function parseTime(text: string): number | null {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const clock = /^(?:(\d+):)?(\d+):(\d{1,2}(?:\.\d+)?)$/.exec(trimmed);
  if (clock !== null) {
    const [, hours = '0', minutes = '0', seconds = '0'] = clock;
    if (Number(seconds) >= 60 || (clock[1] !== undefined && Number(minutes) >= 60)) return null;
    return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
  }
  const units = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(trimmed);
  if (units === null || trimmed === '') return null;
  const [, hours = '0', minutes = '0', seconds = '0'] = units;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

/** `seconds` as a clock, `1:02:03` (or `2:03` under an hour), whole seconds: how chapter lines write a moment's time. */
export function clockOf(seconds: number): string {
  const whole = Math.floor(seconds);
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** `seconds` as YouTube's link time, `1h02m03s` (`2m03s`, `45s`), whole seconds: what `?t=` takes. */
export function linkTimeOf(seconds: number): string {
  const whole = Math.floor(seconds);
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h${two(m)}m${two(s)}s`;
  return m > 0 ? `${m}m${two(s)}s` : `${s}s`;
}

/** A position as a clip's query writes it: seconds to the tenth (`75.3`), no more digits than that says. */
export function clipSeconds(seconds: number): string {
  return String(Math.round(seconds * 10) / 10);
}
