import Type, { type Static } from 'typebox';

// null first: the body's coercion would read a null as 0 for the number
const limit = (schema: ReturnType<typeof Type.Integer> | ReturnType<typeof Type.Number>) => Type.Union([Type.Null(), schema]);
const keepLast = Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'keep the newest N archives' });
const maxAgeDays = Type.Integer({ minimum: 0, maximum: 100_000, description: 'keep archives younger than D days' });
const maxGb = Type.Number({ minimum: 0, maximum: 1_000_000, description: 'keep at most G GB (10⁹ bytes), newest first' });

/** Retention rules as the API shows them: a null limit is no limit. */
export const RetentionRulesSchema = Type.Object(
  { keepLast: limit(keepLast), maxAgeDays: limit(maxAgeDays), maxGb: limit(maxGb) },
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
  keepLast: Type.Optional(limit(keepLast)),
  maxAgeDays: Type.Optional(limit(maxAgeDays)),
  maxGb: Type.Optional(limit(maxGb)),
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
