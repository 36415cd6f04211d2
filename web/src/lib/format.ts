// Decisions: docs/decisions/0063-web-ui-conventions.md
// Numbers for people: decimal sizes (as the storage bill counts GB = 10^9 bytes), durations, times.
// Each is written in the page's language (docs/i18n.md): `Intl` is asked in it, and the unit words
// come from the message catalogue.

import { getLocale, m } from './i18n.js';

/** An `Intl` formatter in the page's language, made when first asked for (the language is fixed for a page's life). */
function inPageLanguage<T>(make: (locale: string) => T): () => T {
  let made: T | undefined;
  return () => (made ??= make(getLocale()));
}

const numbers = inPageLanguage((locale) => new Intl.NumberFormat(locale));

/** A count with the page language's grouping: `1,234`. */
export function humanNumber(value: number): string {
  return numbers().format(value);
}

const SIZE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

export function humanSize(bytes: number | undefined | null): string {
  if (bytes === undefined || bytes === null) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < SIZE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${SIZE_UNITS[unit]}`;
}

/** `1:02:03` or `2:03`. */
export function humanDuration(seconds: number | undefined | null): string {
  if (seconds === undefined || seconds === null) return '—';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const min = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(min)}:${pad(s % 60)}` : `${min}:${pad(s % 60)}`;
}

const relative = inPageLanguage((locale) => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));
const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.35],
  ['month', 12],
  ['year', Infinity],
];

/** "3 hours ago", "in 2 days"; 「3 時間前」. */
export function relativeTime(iso: string, now: number): string {
  let value = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return relative().format(Math.round(value), unit);
    value /= size;
  }
  return iso;
}

const exact = inPageLanguage((locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'long' }));

export function exactTime(iso: string): string {
  return exact().format(new Date(iso));
}

/** A date and time in short: `11/30/2026, 2:07:04 PM`, `2026/11/30 14:07:04`. */
export function shortTime(iso: string): string {
  return new Date(iso).toLocaleString(getLocale());
}

/** A time of day: `2:07:04 PM`, `14:07:04`. */
export function clockTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(getLocale());
}

/** A countdown to `iso`: `2 d 03:04:05` (「2日 03:04:05」), `03:04:05`, or null once it has passed. */
export function countdown(iso: string, now: number): string | null {
  const left = Math.floor((Date.parse(iso) - now) / 1000);
  if (left <= 0) return null;
  const d = Math.floor(left / 86400);
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = `${pad(Math.floor((left % 86400) / 3600))}:${pad(Math.floor((left % 3600) / 60))}:${pad(left % 60)}`;
  return d > 0 ? m.format_countdown_days({ days: humanNumber(d), clock }) : clock;
}

/** `2.4 Mb/s`, `640 kb/s` (decimal, as bitrates are counted); `—` while unknown. */
export function humanBitrate(bitsPerSecond: number | null): string {
  if (bitsPerSecond === null) return '—';
  return bitsPerSecond >= 1_000_000 ? `${(bitsPerSecond / 1_000_000).toFixed(1)} Mb/s` : `${Math.round(bitsPerSecond / 1000)} kb/s`;
}
