// Decisions: docs/decisions/0075-original-interface-compatibility.md
import Type, { type TSchema } from 'typebox';

/** The headers a paginated list answers with: how many there are in all, and whether a later page has more. */
export const PAGINATION_HEADERS = {
  total: 'x-kura-pagination-total',
  hasMore: 'x-kura-pagination-has-more',
} as const;

/** The same two, by the names of the original service, whose web client reads only these (KURA_ORIGINAL_HEADERS). */
export const ORIGINAL_PAGINATION_HEADERS = {
  total: 'x-pomu-pagination-total',
  hasMore: 'x-pomu-pagination-has-more',
} as const;

/** What a paginated route sends its headers by: whether the original service's names go too. */
export interface PaginationOptions {
  originalHeaders: boolean;
}

/** The header names sent on every page, Kura's first: what CORS exposes to other origins. */
export function paginationHeaderNames(options: PaginationOptions): string[] {
  const names = [PAGINATION_HEADERS.total, PAGINATION_HEADERS.hasMore];
  return options.originalHeaders ? [...names, ORIGINAL_PAGINATION_HEADERS.total, ORIGINAL_PAGINATION_HEADERS.hasMore] : names;
}

/** The headers of one page. */
export function paginationHeaders(page: { total: number; hasMore: boolean }, options: PaginationOptions): Record<string, string> {
  const sets = options.originalHeaders ? [PAGINATION_HEADERS, ORIGINAL_PAGINATION_HEADERS] : [PAGINATION_HEADERS];
  return Object.fromEntries(
    sets.flatMap((names) => [
      [names.total, String(page.total)],
      [names.hasMore, String(page.hasMore)],
    ]),
  );
}

/** A page's 200 answer as the document declares it: the list, with the headers it carries. */
export function paginatedResponse<T extends TSchema>(schema: T, description: string, options: PaginationOptions): T {
  const total = (original: boolean) =>
    Type.Integer({ minimum: 0, description: `How many there are in all, over every page${original ? ' (the original service’s name)' : ''}` });
  const hasMore = (original: boolean) =>
    Type.Enum(['true', 'false'], { description: `Whether a later page holds more${original ? ' (the original service’s name)' : ''}` });
  const headers = {
    [PAGINATION_HEADERS.total]: total(false),
    [PAGINATION_HEADERS.hasMore]: hasMore(false),
    ...(options.originalHeaders ? { [ORIGINAL_PAGINATION_HEADERS.total]: total(true), [ORIGINAL_PAGINATION_HEADERS.hasMore]: hasMore(true) } : {}),
  };
  // @fastify/swagger moves `headers` of a response schema to the response's headers
  return { ...schema, description, headers };
}
