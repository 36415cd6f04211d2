/** When a signed URL says it expires (googlevideo's `/expire/N/` path or `expire=N` query), else null. */
export function playlistExpiry(url: string): Date | null {
  const seconds = /\/expire\/(\d{9,11})(?:\/|$)/.exec(url)?.[1] ?? /[?&]expire=(\d{9,11})(?:&|$)/.exec(url)?.[1];
  return seconds === undefined ? null : new Date(Number(seconds) * 1000);
}
