// How a Discord message writes times, sizes, links and words from a source.

/** h:mm:ss, as Discord users read a video's length. */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(total / 3600)}:${two(Math.floor((total % 3600) / 60))}:${two(total % 60)}`;
}

/** Decimal MB below a GB, GB above (10^9 bytes, as the web UI and the storage bill count). */
export function formatSize(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Discord's own timestamp markup: each reader sees the time in their zone, and how far off it is. */
export function discordTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return escapeMarkdown(iso);
  const unix = Math.floor(ms / 1000);
  return `<t:${unix}:F> (<t:${unix}:R>)`;
}

export function timestampOf(iso: string): { timestamp?: string } {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? {} : { timestamp: new Date(ms).toISOString() };
}

/** The URL if it is an absolute http(s) one (Discord refuses others in an embed), else undefined. */
export function httpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Words from a source (an error, a URL) shown as written, not as Discord markdown. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_~|>[\]()<#@-]/g, '\\$&');
}
