import Type, { type Static } from 'typebox';

type Limit = { minimum: number; maximum: number; description: string };
/**
 * A limit or null (no limit), as one JSON-schema type list: the body's type coercion leaves a value
 * of either type alone, where a union would read 0 as null (or null as 0).
 */
const limit = (type: 'integer' | 'number', options: Limit) => Type.Unsafe<number | null>({ type: [type, 'null'], ...options });
const keepLastLimit: Limit = { minimum: 0, maximum: 1_000_000, description: 'keep the newest N archives; null: no limit' };
const maxAgeDaysLimit: Limit = { minimum: 0, maximum: 100_000, description: 'keep archives younger than D days; null: no limit' };
const maxGbLimit: Limit = { minimum: 0, maximum: 1_000_000, description: 'keep at most G GB (10⁹ bytes), newest first; null: no limit' };
const notNull = (limit: Limit): Limit => ({ ...limit, description: limit.description.replace('; null: no limit', '; left out: no limit') });
const keepLast = Type.Integer(notNull(keepLastLimit));
const maxAgeDays = Type.Integer(notNull(maxAgeDaysLimit));
const maxGb = Type.Number(notNull(maxGbLimit));

/** Retention rules as the API shows them: a null limit is no limit. */
export const RetentionRulesSchema = Type.Object(
  { keepLast: limit('integer', keepLastLimit), maxAgeDays: limit('integer', maxAgeDaysLimit), maxGb: limit('number', maxGbLimit) },
  { $id: 'RetentionRules', description: 'how many archives are kept (docs/api.md, Retention); every limit null: the next rule set applies' },
);

/** The retention limits a create takes (left out: no limit). */
export const retentionCreateProperties = {
  keepLast: Type.Optional(keepLast),
  maxAgeDays: Type.Optional(maxAgeDays),
  maxGb: Type.Optional(maxGb),
};

/** The retention limits a change takes (left out: unchanged; null: cleared). */
export const retentionChangeProperties = {
  keepLast: Type.Optional(limit('integer', keepLastLimit)),
  maxAgeDays: Type.Optional(limit('integer', maxAgeDaysLimit)),
  maxGb: Type.Optional(limit('number', maxGbLimit)),
};

export const RetentionChangeSchema = Type.Object(retentionChangeProperties, { additionalProperties: false, minProperties: 1 });

export const RetentionPlanSchema = Type.Object(
  {
    removals: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        sizeBytes: Type.Integer(),
        reason: Type.String({ description: '"retention: keep the last 5 of follow NAME"' }),
      }),
      { description: 'the archives a run would remove now' },
    ),
    count: Type.Integer({ description: 'how many' }),
    bytes: Type.Integer({ description: 'the space they would free' }),
  },
  { $id: 'RetentionPlan' },
);
export type RetentionPlanJson = Static<typeof RetentionPlanSchema>;
