// The search slice of the configuration, parsed by src/config.ts from the environment it read.

/** KURA_SEARCH: the built-in engine (default), an external Meilisearch, or none. */
export type SearchConfig =
  | { kind: 'builtin' }
  | { kind: 'off' }
  | {
      kind: 'meilisearch';
      /** Where Kura reaches Meilisearch (MEILISEARCH_URL). */
      url: string;
      /** Where clients reach it (MEILISEARCH_PUBLIC_URL, default MEILISEARCH_URL). */
      publicUrl: string;
      /** MEILISEARCH_ADMIN_KEY: manages the index and keys; never handed out. */
      adminKey: string;
    };

type Read = (name: string) => string | undefined;

/** The search slice of the environment; problems are added to `problems`. */
export function parseSearch(read: Read, problems: string[]): SearchConfig {
  const kind = read('KURA_SEARCH') ?? 'builtin';
  if (kind === 'builtin' || kind === 'off') return { kind };
  if (kind !== 'meilisearch') {
    problems.push(`KURA_SEARCH must be one of builtin, meilisearch, off (got "${kind}")`);
    return { kind: 'builtin' };
  }
  const url = httpUrl('MEILISEARCH_URL', read('MEILISEARCH_URL'), problems, true);
  const publicUrl = httpUrl('MEILISEARCH_PUBLIC_URL', read('MEILISEARCH_PUBLIC_URL'), problems, false) ?? url;
  const adminKey = read('MEILISEARCH_ADMIN_KEY');
  if (adminKey === undefined) problems.push('MEILISEARCH_ADMIN_KEY is required when KURA_SEARCH=meilisearch');
  return { kind, url: url ?? '', publicUrl: publicUrl ?? '', adminKey: adminKey ?? '' };
}

function httpUrl(name: string, raw: string | undefined, problems: string[], required: boolean): string | undefined {
  if (raw === undefined) {
    if (required) problems.push(`${name} is required when KURA_SEARCH=meilisearch`);
    return undefined;
  }
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return url.href.replace(/\/+$/, '');
  } catch {
    problems.push(`${name} must be an http(s) URL (got "${raw}")`);
    return undefined;
  }
}
