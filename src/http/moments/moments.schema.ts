import Type, { type Static } from 'typebox';
import { MOMENT_TEXT_MAX, type Moment } from '../../core/moments/moment.js';

export const MomentSchema = Type.Object(
  {
    id: Type.String(),
    livestreamId: Type.String(),
    at: Type.Number({ minimum: 0, description: 'seconds from the start of the recording (the archive’s, or the live player’s while it is recorded)' }),
    text: Type.String({ description: `what happened there, one line of 1–${MOMENT_TEXT_MAX} characters (plain text: escape it where you show it)` }),
    author: Type.String({ description: 'who added it, "provider/userId" as submitters are named' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Moment' },
);
export type MomentJson = Static<typeof MomentSchema>;

export const NewMomentSchema = Type.Object({
  at: Type.Number({ minimum: 0, maximum: 8_640_000, description: 'seconds from the start of the recording' }),
  text: Type.String({ minLength: 1, maxLength: 1000, description: `1–${MOMENT_TEXT_MAX} characters once trimmed, one line` }),
});

export const MomentChangeSchema = Type.Object(
  {
    at: Type.Optional(NewMomentSchema.properties.at),
    text: Type.Optional(NewMomentSchema.properties.text),
  },
  { minProperties: 1 },
);

export const MomentParamsSchema = Type.Object({ momentId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$', description: 'A moment’s id' }) });

export function presentMoment(moment: Moment): MomentJson {
  return {
    id: moment.id,
    livestreamId: moment.livestreamId,
    at: moment.atSeconds,
    text: moment.text,
    author: moment.author,
    createdAt: moment.createdAt.toISOString(),
    updatedAt: moment.updatedAt.toISOString(),
  };
}
