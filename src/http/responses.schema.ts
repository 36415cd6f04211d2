// Decisions: docs/decisions/0004-route-schemas-define-the-api.md
import Type, { type Static } from 'typebox';

/** The media type of every error Kura answers (RFC 9457); sendProblem writes it. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** RFC 9457 problem details; `code` is stable and snake_case. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
  },
  { description: 'application/problem+json (RFC 9457)' },
);

/** One error answer of a route, documented as `application/problem+json` (the type sendProblem sends). */
export function problemResponse(description: string) {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemSchema } } };
}

/**
 * Documents the error answers of a route; errors are written as strings, never through this schema.
 * Every route gets these unless it declares its own `4xx` (see installProblemHandling): any request
 * can be refused before its handler runs (a body too large or of a type it does not take).
 */
export const problemResponses = {
  '4xx': problemResponse(
    'A refusal of the request, with a stable code. Any route may answer: 400 `invalid_parameter` (a query or path parameter), `invalid_body` (a field of the body), `malformed_json`, `malformed_url`, `path_parameter_too_long`, `invalid_content_length`, `bad_request`; 401 `not_logged_in`, `feed_token_invalid` (a private instance read with a wrong feed token); 403 `admin_only`, `cross_origin_refused` (a cookie session from another site); 404 `route_not_found`; 405 `method_not_allowed`; 413 `payload_too_large`; 415 `unsupported_media_type`. Before any route, a request HTTP cannot read: 400 `malformed_request`, `invalid_header`; 408 `request_timeout`; 414 `url_too_long`; 431 `headers_too_large`',
  ),
  '5xx': problemResponse(
    "A failure of Kura or of what it depends on, with a stable code: 500 `internal_error`; 503 (with Retry-After) `database_unavailable` (PostgreSQL cannot be reached, or is short of memory or connections), `search_unavailable` or `storage_full` (a full disk: PostgreSQL's, or the one Kura writes files to)",
  ),
};

export type Problem = Static<typeof ProblemSchema>;

/** The answer of a route that answers 204 with no body. */
export const NoContentSchema = Type.Null({ description: 'No content' });

/** A redirect: no body, `Location` says where. */
export function redirectResponse(description: string) {
  return Type.Null({ description });
}

/** A body that is not JSON (a file, a playlist, a feed), of one of these media types. */
export function bytesResponse(description: string, mediaTypes: readonly string[]) {
  return { description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: Type.String() }])) };
}

/** A route's 429: a rate limit refused the request (`too_many_requests`); Retry-After says when to try again. */
export const rateLimitedResponse = {
  429: {
    ...problemResponse('`too_many_requests`: a rate limit refused the request; try again after Retry-After'),
    headers: { 'retry-after': Type.Integer({ minimum: 1, description: 'Seconds until the limit lets a request through again' }) },
  },
};
