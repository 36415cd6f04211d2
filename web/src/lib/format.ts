// Decisions: docs/decisions/0063-web-ui-conventions.md
// Numbers for people: decimal sizes (as the storage bill counts GB = 10^9 bytes), durations, times.

import type { Stats } from './api.js';

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
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.35],
  ['month', 12],
  ['year', Infinity],
];

/** "3 hours ago", "in 2 days". */
export function relativeTime(iso: string, now: number): string {
  let value = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return relative.format(Math.round(value), unit);
    value /= size;
  }
  return iso;
}

const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' });

export function exactTime(iso: string): string {
  return exact.format(new Date(iso));
}

/** A countdown to `iso`: `2 d 03:04:05`, `03:04:05`, or null once it has passed. */
export function countdown(iso: string, now: number): string | null {
  const left = Math.floor((Date.parse(iso) - now) / 1000);
  if (left <= 0) return null;
  const d = Math.floor(left / 86400);
  const pad = (n: number) => String(n).padStart(2, '0');
  const clock = `${pad(Math.floor((left % 86400) / 3600))}:${pad(Math.floor((left % 3600) / 60))}:${pad(left % 60)}`;
  return d > 0 ? `${d} d ${clock}` : clock;
}

/** Dollars with the cents that matter: small amounts (a price per GB, a tiny bill) keep 4 decimals. */
export function usd(amount: number): string {
  const digits = amount === 0 || amount >= 10 ? 2 : amount >= 1 ? 2 : 4;
  return new Intl.NumberFormat(undefined, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: Math.min(2, digits),
    maximumFractionDigits: digits,
  }).format(amount);
}

/** A large total of time: `812 h`, `5.2 h`, `42 min`. */
export function humanHours(seconds: number): string {
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${hours >= 100 ? Math.round(hours).toLocaleString() : hours.toFixed(1)} h`;
}

/** The instance's totals as TotalsCards shows them (home and statistics pages). */
export function statsCards(stats: Stats): Array<{ value: string; label: string; note?: string }> {
  return [
    { value: stats.videoAmount.toLocaleString(), label: 'streams archived or queued' },
    { value: humanSize(stats.totalFileSize), label: 'stored' },
    { value: humanHours(stats.totalLength), label: 'of video' },
    { value: stats.uniqueChannels.toLocaleString(), label: 'channels' },
    { value: usd(stats.storageBillPerMonth), label: 'storage per month', note: `at ${usd(stats.usdPerGbPerMonth)}/GB` },
  ];
}

/** `2.4 Mb/s`, `640 kb/s` (decimal, as bitrates are counted); `—` while unknown. */
export function humanBitrate(bitsPerSecond: number | null): string {
  if (bitsPerSecond === null) return '—';
  return bitsPerSecond >= 1_000_000 ? `${(bitsPerSecond / 1_000_000).toFixed(1)} Mb/s` : `${Math.round(bitsPerSecond / 1000)} kb/s`;
}
