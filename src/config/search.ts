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

/** The search slice of the environment; problems are added to `problems` (`httpUrl` adds its own). */
export function parseSearch(read: Read, problems: string[], httpUrl: (name: string, raw: string) => string | undefined): SearchConfig {
  const kind = read('KURA_SEARCH') ?? 'builtin';
  if (kind === 'builtin' || kind === 'off') return { kind };
  if (kind !== 'meilisearch') {
    problems.push(`KURA_SEARCH must be one of builtin, meilisearch, off (got "${kind}")`);
    return { kind: 'builtin' };
  }
  const rawUrl = read('MEILISEARCH_URL');
  if (rawUrl === undefined) problems.push('MEILISEARCH_URL is required when KURA_SEARCH=meilisearch');
  const url = rawUrl === undefined ? undefined : httpUrl('MEILISEARCH_URL', rawUrl);
  const rawPublicUrl = read('MEILISEARCH_PUBLIC_URL');
  const publicUrl = rawPublicUrl === undefined ? url : httpUrl('MEILISEARCH_PUBLIC_URL', rawPublicUrl);
  const adminKey = read('MEILISEARCH_ADMIN_KEY');
  if (adminKey === undefined) problems.push('MEILISEARCH_ADMIN_KEY is required when KURA_SEARCH=meilisearch');
  return { kind, url: url ?? '', publicUrl: publicUrl ?? '', adminKey: adminKey ?? '' };
}
