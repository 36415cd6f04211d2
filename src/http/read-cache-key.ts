import type { FastifyRequest } from 'fastify';

/** What a cached answer depends on besides the request itself (the caller's audience); plain values only. */
export type CacheVary = Readonly<Record<string, string | number | boolean | null>>;

/**
 * The read cache's key of a request: its route, and a stable serialization of everything the
 * route's answer may be computed from — the path parameters, query and body as Fastify parsed them
 * (validated, coerced, defaults filled in) — and `vary`. Built from the parsed request itself, so a
 * parameter a route adds is in the key without anyone writing it there. A query parameter the
 * route's schema does not declare is left out: the route never reads it (a client's cache-buster),
 * and it must not make a new entry per value. HEAD shares GET's answers.
 */
export function readCacheKey(request: Pick<FastifyRequest, 'method' | 'routeOptions' | 'params' | 'query' | 'body'>, vary: CacheVary = {}): string {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const schema = request.routeOptions.schema;
  const parsed = { params: request.params ?? {}, query: declaredOnly(request.query ?? {}, schema?.querystring), body: request.body, vary };
  return `${method} ${request.routeOptions.url} ${stableJson(parsed)}`;
}

/** The properties of `value` that `schema` declares; all of them when it declares none (or `value` is no object). */
function declaredOnly(value: unknown, schema: unknown): unknown {
  const declared = isRecord(schema) && isRecord(schema.properties) ? schema.properties : null;
  if (declared === null || !isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => Object.hasOwn(declared, key)));
}

/**
 * JSON with every object's keys in sorted order: the same value serializes the same whichever
 * order its keys came in. Written out by hand (it runs on every cached read): JSON.stringify with
 * a replacer rebuilt each object, and cost a small answer's request a tenth of its time.
 */
export function stableJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item: unknown) => (item === undefined || typeof item === 'function' ? 'null' : stableJson(item))).join(',')}]`;
  if (!isRecord(value)) return JSON.stringify(value) ?? 'undefined';
  if (typeof value.toJSON === 'function') return stableJson((value.toJSON as () => unknown)());
  let json = '';
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (item === undefined || typeof item === 'function') continue;
    json += `${json === '' ? '' : ','}${JSON.stringify(key)}:${stableJson(item)}`;
  }
  return `{${json}}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
