// Decisions: docs/decisions/0001-errors-are-problem-json.md
import type { FastifyError, FastifyRequest } from 'fastify';
import { CHANNEL_ID_MAX_LENGTH } from '../core/vocabulary.js';

// A request refused before any route code runs (by Fastify, or by Node's HTTP parser in
// client-error.ts): its stable code and a sentence a person understands.

/**
 * The codes of refusals made before any use case runs (by Fastify, or by Node's HTTP parser in
 * client-error.ts), beside core's ErrorCode: together the closed set clients can rely on.
 */
export type FrameworkCode =
  | 'malformed_url'
  | 'path_parameter_too_long'
  | 'invalid_body'
  | 'malformed_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'invalid_content_length'
  | 'invalid_header'
  | 'malformed_request'
  | 'headers_too_large'
  | 'url_too_long'
  | 'request_timeout'
  | 'internal_error';

/** The longest path parameter routed (a channel id, CHANNEL_ID_MAX_LENGTH); longer ones are refused with 414. */
export const MAX_PATH_PARAMETER_LENGTH = CHANNEL_ID_MAX_LENGTH;

/**
 * Fastify's own refusals of a request (before any route code runs), each with a stable code and
 * a sentence a person understands instead of Fastify's wording.
 */
const FRAMEWORK_PROBLEMS: Readonly<Record<string, { code: FrameworkCode; detail: (request: FastifyRequest) => string }>> = {
  FST_ERR_BAD_URL: { code: 'malformed_url', detail: () => 'The path is not valid percent-encoded UTF-8.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'path_parameter_too_long', detail: () => `A path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters.` },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'invalid_body',
    detail: (request) =>
      `The request body is empty although its Content-Type is ${request.headers['content-type']?.startsWith('text/plain') ? 'text/plain' : 'application/json'}; send a JSON object, or no Content-Type.`,
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'malformed_json', detail: () => 'The request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: unsupportedMediaTypeDetail },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', detail: () => 'The request body is larger than Kura accepts (1 MiB; 64 KiB for a form).' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_content_length', detail: () => 'The Content-Length header does not match the body sent.' },
};

/** The stable code and a readable detail of one of Fastify's own request errors; null for any other error. */
export function frameworkProblem(error: { code?: string }, request: FastifyRequest): { code: string; detail: string } | null {
  const known = error.code === undefined ? undefined : FRAMEWORK_PROBLEMS[error.code];
  return known === undefined ? null : { code: known.code, detail: known.detail(request) };
}

/** What the route takes (its schema's `consumes`, else JSON when it reads a body), and what it was sent. */
function unsupportedMediaTypeDetail(request: FastifyRequest): string {
  const type = request.headers['content-type'];
  // a media type is short; a header of kilobytes is echoed cut, not whole
  const sent = type === undefined ? 'a body without a Content-Type' : `"${type.length > 100 ? `${type.slice(0, 100)}…` : type}"`;
  const schema = request.routeOptions.schema as { body?: unknown; consumes?: readonly string[] } | undefined;
  const takes = schema?.consumes ?? (schema?.body === undefined ? [] : ['application/json']);
  const route = `${request.method} ${pathOf(request)}`;
  if (takes.length === 0) return `${route} reads no request body; send none, not ${sent}.`;
  return `${route} takes a body of type ${takes.join(' or ')}, not ${sent}.`;
}

export function codeOfContext(context: string | undefined): string {
  return context === 'body' ? 'invalid_body' : 'invalid_parameter';
}

/** "Query parameter "limit" must be >= 1 (rule: …)": the parameter, what is wrong, and the rule. */
export function validationDetail(error: FastifyError, request: FastifyRequest): string {
  const first = error.validation?.[0];
  if (first === undefined) return error.message;
  const missing = (first.params as { missingProperty?: string }).missingProperty;
  const name = missing ?? first.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  const where = { querystring: 'Query parameter', params: 'Path parameter', body: 'Field', headers: 'Header' }[error.validationContext ?? 'querystring'];
  const schema = request.routeOptions.schema?.[error.validationContext as 'querystring'] as
    { properties?: Record<string, { description?: string }> } | undefined;
  if (name === '' && missing === undefined && first.keyword !== 'additionalProperties' && error.validationContext === 'body') return bodyDetail(first);
  const rule = schema?.properties?.[name]?.description;
  const message = first.keyword === 'additionalProperties' ? 'is not known' : (first.message ?? 'is invalid');
  return `${where ?? 'Parameter'} "${name || (first.params as { additionalProperty?: string }).additionalProperty}" ${message}${rule ? ` (rule: ${rule})` : ''}.`;
}

/** A violation of the body as a whole: it is absent, or not the JSON object the route reads. */
function bodyDetail(violation: { keyword: string; params: Record<string, unknown>; message?: string }): string {
  if (violation.keyword === 'type' && violation.params.type === 'object') return 'The request body must be a JSON object.';
  return `The request body ${violation.message ?? 'is invalid'}.`;
}

export function snakeCase(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

/** The request's path, without its query. */
export function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '/';
}
