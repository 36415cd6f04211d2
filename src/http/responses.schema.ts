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
