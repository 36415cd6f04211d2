// Decisions: docs/decisions/0043-live-playlist.md
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { getLivePlaylist, liveDepsOf } from '../../core/playback/get-live-playlist.js';
import { readLiveMedia, type LiveMedia } from '../../core/playback/read-live-media.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { bytesResponse, problemResponse, problemResponses } from '../responses.schema.js';

/** Why a record's live playlists and segments cannot be played (now, or any more). */
const NOT_PLAYABLE = {
  409: problemResponse(
    '`capture_not_started` (with Retry-After): nothing can be played yet; `archive_not_ready`: a failed record; `live_not_playable`: fragments in neither fMP4 nor WebM, or audio recorded as a separate HLS rendition',
  ),
  410: problemResponse('`live_ended`: the archive replaced the live recording'),
};
import type { LivestreamRepo } from '../../core/records/ports.js';
import type { CaptureRepo, RecordedBytes } from '../../core/capture/ports.js';

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
const MEDIA_TYPES = { mpegts: 'video/mp2t', fmp4: 'video/iso.segment', init: 'video/mp4', webm: 'video/webm' };
/** A segment's bytes never change once recorded (a lost one is never served): players and proxies may keep them. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const MEDIA_FILE = /^(?:init(?:-(video|audio))?\.(?:mp4|webm)|([0-9]{1,15})\.(?:ts|m4s|webm))$/;

const LivePlaylistQuerySchema = Type.Object({
  _HLS_skip: Type.Optional(
    Type.Union([Type.Literal('YES'), Type.Literal('v2')], {
      description: 'a Playlist Delta Update (RFC 8216bis §6.2.5.1): the segments older than CAN-SKIP-UNTIL are left out',
    }),
  ),
});

const LiveMediaParamsSchema = Type.Object({
  ...LivestreamIdParamsSchema.properties,
  part: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'the part of the capture (1 and up)' }),
  file: Type.String({
    pattern: MEDIA_FILE.source,
    description:
      '`{sequence}.ts` or `{sequence}.m4s` (a media segment, or a fragment after its initialization section; `{sequence}.webm` for WebM fragments), `init.mp4` (an fMP4 part’s initialization section), or `init-video.mp4` / `init-audio.mp4` (that track’s, for a capture of fragments; `.webm` for WebM)',
  }),
});

const LiveTrackParamsSchema = Type.Object({
  ...LivestreamIdParamsSchema.properties,
  track: Type.Union([Type.Literal('video.m3u8'), Type.Literal('audio.m3u8')], { description: 'the track whose media playlist this is' }),
});

/** What live playback uses: the records, their captures, and the bytes recorded so far. */
export interface LiveRouteDeps {
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  recordedBytes: RecordedBytes;
}

/** `GET /api/video/{id}/live.m3u8` and its segments: watching a record while it is recorded. */
export function liveRoutes(deps: LiveRouteDeps): FastifyPluginAsyncTypebox {
  const { livestreams, captures, recordedBytes: bytes } = deps;
  const live = liveDepsOf({ livestreams, captures, bytes });
  return async (app) => {
    app.get(
      '/video/:id/live.m3u8',
      {
        schema: {
          operationId: 'getLivePlaylist',
          summary:
            'HLS playlist (EVENT) of a record being recorded, from its first segment; #EXT-X-ENDLIST once the capture ended; 410 live_ended once the archive replaced it. For a record recorded as fragments (YouTube), a multivariant playlist: live/video.m3u8 with live/audio.m3u8 as its audio rendition',
          description:
            'Parts after the first start with #EXT-X-DISCONTINUITY, fMP4 parts with #EXT-X-MAP, lost segments are #EXT-X-GAP segments. 409 capture_not_started (with Retry-After) before anything can be played, 409 archive_not_ready for a failed record, 410 live_ended once the record is finished (play GET /api/download/{id}/video), A capture of fragments lists WebM tracks (VP9, Opus) the same way (`.webm`), for a Media Source Extensions player, as HLS players cannot play them; 409 live_not_playable for fragments in neither fMP4 nor WebM, and for a stream whose audio is recorded as a separate HLS rendition (played once archived).',
          params: LivestreamIdParamsSchema,
          querystring: LivePlaylistQuerySchema,
          response: {
            200: { description: 'The playlist', content: { [PLAYLIST_TYPE]: { schema: Type.String() } } },
            404: problemResponse('`livestream_not_found`'),
            ...NOT_PLAYABLE,
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const playlist = await getLivePlaylist(live, request.params.id, { delta: request.query._HLS_skip !== undefined });
        return reply.header('cache-control', 'no-cache').type(PLAYLIST_TYPE).send(playlist.text);
      },
    );

    app.get(
      '/video/:id/live/:track',
      {
        schema: {
          operationId: 'getLiveTrackPlaylist',
          summary: 'HLS media playlist (EVENT) of one track of a record recorded as fragments (YouTube), as its live.m3u8 names it',
          description:
            'Media sequence n is fragment n; each fragment is listed after #EXT-X-MAP naming its track’s initialization section in its part, lost fragments are #EXT-X-GAP segments, parts after the first start with #EXT-X-DISCONTINUITY. The same answers as live.m3u8, and 404 live_segment_not_found for a record recorded as one HLS track (it has no track playlists).',
          params: LiveTrackParamsSchema,
          querystring: LivePlaylistQuerySchema,
          response: {
            200: { description: 'The track’s playlist', content: { [PLAYLIST_TYPE]: { schema: Type.String() } } },
            404: problemResponse('`livestream_not_found`; `live_segment_not_found`: a record recorded as one HLS track has no track playlists'),
            ...NOT_PLAYABLE,
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { id, track } = request.params;
        const options = { delta: request.query._HLS_skip !== undefined, track: track === 'audio.m3u8' ? ('audio' as const) : ('video' as const) };
        const playlist = await getLivePlaylist(live, id, options);
        return reply.header('cache-control', 'no-cache').type(PLAYLIST_TYPE).send(playlist.text);
      },
    );

    app.get(
      '/video/:id/live/:part/:file',
      {
        schema: {
          operationId: 'getLiveSegment',
          summary: 'A media segment or initialization section of a record being recorded, as the live playlist names it (immutable)',
          description:
            '404 live_segment_not_found for a segment not recorded in that part (or lost), 410 live_ended once the record is finished or failed (play the archive).',
          params: LiveMediaParamsSchema,
          // the bytes are streamed as the source sent them, as downloads are
          response: {
            200: bytesResponse('The segment or initialization section', Object.values(MEDIA_TYPES)),
            404: problemResponse('`livestream_not_found`; `live_segment_not_found`: no such segment (any more)'),
            ...NOT_PLAYABLE,
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { id, part, file } = request.params;
        const [, track, sequence] = MEDIA_FILE.exec(file) ?? [];
        const wanted = { id, part, sequence: sequence === undefined ? null : Number(sequence), track: track as 'video' | 'audio' | undefined };
        const media = await readLiveMedia(live, wanted);
        return sendMedia(reply, media);
      },
    );
  };
}

function sendMedia(reply: FastifyReply, media: LiveMedia): FastifyReply {
  const type = media.format.kind === 'webm' ? MEDIA_TYPES.webm : media.kind === 'init' ? MEDIA_TYPES.init : MEDIA_TYPES[media.format.kind];
  reply.header('cache-control', IMMUTABLE).header('content-length', media.bytes).type(type);
  return reply.send(Readable.from(media.body, { objectMode: false }));
}
