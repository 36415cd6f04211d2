// The instance's and a channel's totals in words, in the page's language: apart from format.ts,
// which every page loads, so that the pages that show no totals (the history) do not carry them.

import type { Stats } from './api.js';
import { humanNumber, humanSize } from './format.js';
import { getLocale, m } from './i18n.js';

/** Dollars with the cents that matter: small amounts (a price per GB, a tiny bill) keep 4 decimals. */
export function usd(amount: number): string {
  const digits = amount === 0 || amount >= 10 ? 2 : amount >= 1 ? 2 : 4;
  return new Intl.NumberFormat(getLocale(), {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: Math.min(2, digits),
    maximumFractionDigits: digits,
  }).format(amount);
}

/** A large total of time: `812 h`, `5.2 h`, `42 min` (「812時間」「5.2時間」「42分」). */
export function humanHours(seconds: number): string {
  if (seconds < 3600) return m.format_minutes({ minutes: humanNumber(Math.round(seconds / 60)) });
  const hours = seconds / 3600;
  return m.format_hours({ hours: hours >= 100 ? humanNumber(Math.round(hours)) : hours.toFixed(1) });
}

/** The instance's totals as TotalsCards shows them (home and statistics pages). */
export function statsCards(stats: Stats): Array<{ value: string; label: string; note?: string }> {
  return [
    { value: humanNumber(stats.videoAmount), label: m.stats_card_streams() },
    { value: humanSize(stats.totalFileSize), label: m.common_card_stored() },
    { value: humanHours(stats.totalLength), label: m.common_card_video() },
    { value: humanNumber(stats.uniqueChannels), label: m.stats_card_channels() },
    { value: usd(stats.storageBillPerMonth), label: m.stats_card_storage(), note: m.stats_card_price({ price: usd(stats.usdPerGbPerMonth) }) },
  ];
}
