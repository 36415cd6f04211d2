// Decisions: docs/decisions/0075-original-interface-compatibility.md
import Type, { type Static } from 'typebox';
import { GIVEN_NAME_RULE, VISIBLE_NAME_PATTERN } from '../../core/records/record-names.js';

/** A quality code as /api/qualities hands it out: `best`, or a height like `720p`. */
const QUALITY_CODE_PATTERN = '^(best|[1-9][0-9]{2,3}p)$';

/**
 * `quality` as the original web client sends it too: the number it was handed (a height, 0 for the
 * best) or null. The integer branches come first: with type coercion on, a string branch tried
 * first would turn 720 into "720" and refuse it.
 */
const QualitySchema = Type.Union(
  [
    Type.Literal(0, { description: 'the best offered' }),
    Type.Integer({ minimum: 100, maximum: 9999, description: 'a height: 720 is 720p' }),
    Type.Null({ description: 'the best offered' }),
    Type.String({ pattern: QUALITY_CODE_PATTERN, description: '`best`, or a height like `720p`, as GET /api/qualities lists' }),
  ],
  { description: 'A code GET /api/qualities lists (`best` by default, `720p`), a height as a number (720), or 0 or null for the best' },
);

/** The body of `POST /api/submit`: JSON, sent as application/json or as text/plain (the original web client's way). */
export const SubmitBodySchema = Type.Object({
  videoUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'A YouTube livestream URL or an HLS playlist (.m3u8) URL' }),
  quality: Type.Optional(QualitySchema),
  title: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: VISIBLE_NAME_PATTERN,
      description: `An HLS stream’s title (default: its channel or host and the minute it was queued); YouTube streams keep YouTube’s. A JSON string; ${GIVEN_NAME_RULE}`,
    }),
  ),
  channel: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: VISIBLE_NAME_PATTERN,
      description: `An HLS stream’s channel (default: its host); its channel id is a slug of it. A JSON string; ${GIVEN_NAME_RULE}`,
    }),
  ),
});
export type SubmitBody = Static<typeof SubmitBodySchema>;

/** The media types the route reads its JSON body from. */
export const SUBMIT_MEDIA_TYPES = ['application/json', 'text/plain'];

/** The quality as the use case takes it: a `720p`-style code, or undefined for the best. */
export function requestedQuality(quality: SubmitBody['quality']): string | undefined {
  if (quality === undefined || quality === null || quality === 0 || quality === 'best') return undefined;
  return typeof quality === 'number' ? `${quality}p` : quality;
}
