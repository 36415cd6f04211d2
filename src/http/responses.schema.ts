import Type, { type Static } from 'typebox';

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

/** Documents the error answers of a route; errors are written as strings, never through this schema. */
export const problemResponses = { '4xx': ProblemSchema, '5xx': ProblemSchema };

export type Problem = Static<typeof ProblemSchema>;

/** The answer of a route that answers 204 with no body. */
export const NoContentSchema = Type.Null({ description: 'No content' });

/** One error answer a route documents on its own (beside `problemResponses`): what it means, with its codes. */
export const problemResponse = (description: string) => Type.Object(ProblemSchema.properties, { description });

/** A route's 429: a rate limit refused the request (`too_many_requests`); Retry-After says when to try again. */
export const rateLimitedResponse = {
  429: Type.Object(ProblemSchema.properties, {
    description: '`too_many_requests`: a rate limit refused the request; try again after Retry-After',
    headers: { 'retry-after': Type.Integer({ minimum: 1, description: 'Seconds until the limit lets a request through again' }) },
  }),
};
