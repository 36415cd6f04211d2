// Decisions: docs/decisions/0011-import.md, docs/decisions/0041-downloads-and-encoder-log.md, docs/decisions/0052-archive-integrity.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { CONTENT_TYPES, type DownloadType } from '../../core/archive/object-keys.js';
import type { ArchiveStore } from '../../core/archive/ports.js';
import { AppError } from '../../core/errors.js';
import { getLivestream } from '../../core/records/get-livestream.js';
import { openDownload, type DownloadDeps, type Fetcher } from '../../core/record-actions/open-download.js';
import { FeedTokenQuerySchema } from '../feeds/feeds.schema.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { bytesResponse, problemResponse, problemResponses, redirectResponse } from '../responses.schema.js';
import { sendChaptered, type ChapterDeps } from './chaptered-download.js';

/** What the download routes use: what openDownload reads, and the store to read the bytes it names from; with `chapters`, what a video with its moments as chapters is made with. */
export interface DownloadRouteDeps extends DownloadDeps {
  store: Pick<ArchiveStore, 'directUrl' | 'stat' | 'read' | 'localPath'>;
  chapters?: ChapterDeps;
}

const DownloadQuerySchema = Type.Object({
  ...FeedTokenQuerySchema.properties,
  chapters: Type.Optional(
    Type.Boolean({
      description:
        'video only: true sends the video with the record’s moments as MP4 chapters, copied as it is read (no Range, no Content-Length); without moments, the file as it is',
    }),
  ),
});

const DownloadParamsSchema = Type.Object({
  ...LivestreamIdParamsSchema.properties,
  // any text: an unknown type is a resource that does not exist (404), not a malformed request (400)
  type: Type.String({ description: 'video, log (alias ffmpeg), thumbnail or chat; any other type answers 404 download_type_not_found' }),
});
type DownloadParams = Static<typeof DownloadParamsSchema>;

/** The download types of the path, `ffmpeg` being the original interface's name for the log. */
const TYPE_OF_PATH: ReadonlyMap<string, DownloadType> = new Map([
  ['video', 'video'],
  ['log', 'log'],
  ['ffmpeg', 'log'],
  ['thumbnail', 'thumbnail'],
  ['chat', 'chat'],
]);

/** Set on a video download whose archive was found corrupt (its size or sha256 differs from the record's). */
export const INTEGRITY_HEADER = 'x-kura-integrity';

/** What a download is served as (CONTENT_TYPES without their parameters). */
const DOWNLOAD_MEDIA_TYPES = Object.values(CONTENT_TYPES).map((type) => type.split(';')[0] ?? type);

/** Sec-Fetch-Dest of a media element fetching to play (the web UI's player): it fetches the same file many times. */
const PLAYER_FETCH = new Set(['video', 'audio']);

/** `GET|HEAD /api/download/{id}/{type}` and `GET /api/video/{id}/downloads`. */
export function downloadRoutes(deps: DownloadRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // HEAD declared explicitly: Fastify's automatic HEAD would read the whole file to discard it
    // (as every HEAD, it is left out of the OpenAPI document; its GET says what it answers)
    for (const method of ['GET', 'HEAD'] as const) {
      app.route({
        method,
        url: '/download/:id/:type',
        exposeHeadRoute: false,
        // a video player or a feed reader's enclosure download sends a feed token in the URL
        config: { access: 'feed' },
        schema: {
          operationId: 'downloadArchive',
          summary:
            'Download the video, encoder log, thumbnail or live chat (newline-delimited JSON, gzip-encoded) of an archive (Range supported; HEAD answers the same headers)',
          params: DownloadParamsSchema,
          querystring: DownloadQuerySchema,
          response: {
            200: bytesResponse('The file', DOWNLOAD_MEDIA_TYPES),
            206: bytesResponse('The part of the file the Range asked for', DOWNLOAD_MEDIA_TYPES),
            307: redirectResponse('To where the file is served: object storage, or the URL an imported record names'),
            404: problemResponse(
              '`livestream_not_found`; `download_type_not_found`: no such file of the record; `log_not_imported`: an imported record without its encoder log',
            ),
            409: problemResponse('`archive_not_ready`: not archived (yet)'),
            410: problemResponse('`archive_missing`: the file is gone from storage'),
            416: problemResponse('`range_not_satisfiable`: the Range is past the end of the file'),
            ...problemResponses,
          },
        },
        handler: (request, reply) => download(deps, request, reply),
      });
    }

    app.get(
      '/video/:id/downloads',
      {
        schema: {
          operationId: 'getVideoDownloads',
          summary: 'How many times the video was downloaded',
          params: LivestreamIdParamsSchema,
          response: { 200: Type.Object({ downloads: Type.Integer() }), ...problemResponses },
        },
      },
      async (request) => ({ downloads: (await getLivestream(deps, request.params.id)).downloadCount }),
    );
  };
}

/** Serves (fs) or redirects to (s3, imported archives) one download of a record, as openDownload decides. */
async function download(
  deps: DownloadRouteDeps,
  request: FastifyRequest<{ Params: DownloadParams; Querystring: Static<typeof DownloadQuerySchema> }>,
  reply: FastifyReply,
) {
  const type = typeOfPath(request.params.type);
  const range = request.headers.range;
  const answer = await openDownload(deps, { id: request.params.id, type, range, fetcher: fetcherOf(request) });
  if (answer.corrupt) reply.header(INTEGRITY_HEADER, 'corrupt');
  // the whole video with its moments as chapters: made as it is sent, so neither a range nor a redirect
  const chaptered = type === 'video' && request.query.chapters === true && request.method === 'GET' && range === undefined;
  if (chaptered && deps.chapters !== undefined && (await sendChaptered({ ...deps, ...deps.chapters }, request.params.id, reply))) return reply;
  if (answer.serve === 'redirect') return reply.redirect(answer.url, 307);
  reply.header('accept-ranges', 'bytes');
  if (answer.serve === 'range-not-satisfiable') {
    reply.header('content-range', `bytes */${answer.size}`);
    throw new AppError('range_not_satisfiable', 'range_not_satisfiable', `Range "${range}" cannot be served from ${answer.size} bytes.`);
  }
  const { key, meta, size, range: bytes } = answer;
  reply.type(meta.contentType).header('content-disposition', meta.contentDisposition);
  if (meta.contentEncoding !== undefined) reply.header('content-encoding', meta.contentEncoding);
  if (bytes !== undefined) reply.code(206).header('content-range', `bytes ${bytes.start}-${bytes.end}/${size}`);
  reply.header('content-length', bytes === undefined ? size : bytes.end - bytes.start + 1);
  if (request.method === 'HEAD') return reply.send();
  return reply.send(await deps.store.read(key, bytes));
}

/** Throws `download_type_not_found` (404) for a type that is not one of the path's names. */
function typeOfPath(name: string): DownloadType {
  const type = TYPE_OF_PATH.get(name);
  if (type === undefined)
    throw new AppError('not_found', 'download_type_not_found', `There is no download type "${name}"; use video, log (or ffmpeg), thumbnail or chat.`);
  return type;
}

/** Who fetches, from the method and headers: what openDownload counts a download by. */
function fetcherOf(request: FastifyRequest): Fetcher {
  return {
    receivesBytes: request.method === 'GET',
    userAgent: request.headers['user-agent'] ?? '',
    playing: PLAYER_FETCH.has(String(request.headers['sec-fetch-dest'] ?? '')),
  };
}
