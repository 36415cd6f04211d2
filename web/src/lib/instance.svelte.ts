import { getJson } from './api.js';
import { session } from './session.svelte.js';

/** What the server wrote in the page's head: whether anyone may read this instance; null when not said (Vite's dev server). */
function modeOfPage(): boolean | undefined {
  const said = document.querySelector('meta[name="kura-public-read"]')?.getAttribute('content');
  return said === 'true' ? true : said === 'false' ? false : undefined;
}

/** Whether anyone may read this instance (`undefined` while it is being asked). */
export const instance = $state<{ publicRead: boolean | undefined }>({ publicRead: modeOfPage() });

/**
 * Unless the page said it, asks the login providers route (which a private instance answers
 * strangers too) whether reading is public.
 */
export async function loadInstance(): Promise<void> {
  if (instance.publicRead !== undefined) return;
  try {
    instance.publicRead = (await getJson<{ publicRead: boolean }>('/auth/providers')).publicRead;
  } catch {
    // unknown: the pages ask the API themselves, and a private one answers 401
    instance.publicRead = true;
  }
}

// The server keeps only a feed token's hash, so the browser that made it keeps it, per user, to
// put it in the feed links it shows; another browser shows them once its user rotates the token.
const storageKey = () => (session.user ? `kura-feed-token:${session.user.provider}/${session.user.id}` : null);

/** Remembers the caller's new feed token in this browser. */
export function rememberFeedToken(token: string): void {
  const key = storageKey();
  if (key !== null) localStorage.setItem(key, token);
}

/** The caller's feed token as this browser knows it, or null. */
export function knownFeedToken(): string | null {
  const key = storageKey();
  return key === null ? null : localStorage.getItem(key);
}

/** A feed URL as a feed reader needs it: on a private instance, with the caller's feed token when this browser knows it. */
export function feedLink(path: string): string {
  const token = instance.publicRead === false ? knownFeedToken() : null;
  if (token === null) return path;
  return `${path}${path.includes('?') ? '&' : '?'}feed_token=${encodeURIComponent(token)}`;
}
