// Decisions: docs/decisions/0008-channels-listed-and-ordered.md
import Type from 'typebox';
import { CHANNEL_ID_MAX_LENGTH } from '../../core/vocabulary.js';

/** A channel id as records carry it: 1 to CHANNEL_ID_MAX_LENGTH characters (a NUL is refused for every input). */
export function channelIdSchema(what: string) {
  return Type.String({
    minLength: 1,
    maxLength: CHANNEL_ID_MAX_LENGTH,
    description: `${what}: a channel id as the records give it (a YouTube UC… id, an HLS source's host), 1 to ${CHANNEL_ID_MAX_LENGTH} characters`,
  });
}
