import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { getLivestream } from '../../core/livestream/get-livestream.js';
import { AppError } from '../../core/errors.js';
import type { Livestream } from '../../core/livestream/livestream.js';
import { CONTENT_TYPES, objectKeys, objectMeta, type DownloadType } from '../../core/archive/object-keys.js';
import { requireStoredChat } from '../../core/chat/read-chat.js';
import type { RouteContext } from '../context.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { bytesResponse, problemResponses, redirectResponse } from '../responses.schema.js';
import { parseRange } from '../../core/archive/byte-range.js';

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

/** User agents of crawlers and link previews: their fetches are not downloads. */
const CRAWLER = /bot|crawl|spider|slurp|facebookexternalhit|embedly|preview|curl\/[\d.]+ \(monitor/i;

/** `GET|HEAD /api/download/{id}/{type}` and `GET /api/video/{id}/downloads`. */
export function downloadRoutes(context: RouteContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // HEAD declared explicitly: Fastify's automatic HEAD would read the whole file to discard it
    // (as every HEAD, it is left out of the OpenAPI document; its GET says what it answers)
    for (const method of ['GET', 'HEAD'] as const) {
      app.route({
        method,
        url: '/download/:id/:type',
        exposeHeadRoute: false,
        schema: {
          operationId: 'downloadArchive',
          summary:
            'Download the video, encoder log, thumbnail or live chat (newline-delimited JSON, gzip-encoded) of an archive (Range supported; HEAD answers the same headers)',
          params: DownloadParamsSchema,
          response: {
            200: bytesResponse('The file', DOWNLOAD_MEDIA_TYPES),
            206: bytesResponse('The part of the file the Range asked for', DOWNLOAD_MEDIA_TYPES),
            307: redirectResponse('To where the file is served: object storage, or the URL an imported record names'),
            ...problemResponses,
          },
        },
        handler: (request, reply) => download(context, request, reply),
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
      async (request) => ({ downloads: (await getLivestream(context, request.params.id)).downloadCount }),
    );
  };
}

/** Serves (fs) or redirects to (s3, imported archives) one download of a record. */
async function download(context: RouteContext, request: FastifyRequest<{ Params: DownloadParams }>, reply: FastifyReply) {
  const type = typeOfPath(request.params.type);
  const record = await getLivestream(context, request.params.id);
  if (type === 'video' && record.archive?.videoKey == null && record.archive?.externalUrl) {
    // an imported record that is not finished names a URL, not an archive: nothing to hand out yet
    if (record.status !== 'finished') throw new AppError('conflict', 'archive_not_ready', `${record.id} is not archived yet (status: ${record.status}).`);
    await countIfDownload(context, request, record.id);
    return reply.redirect(record.archive.externalUrl, 307);
  }
  if (type === 'chat' && record.status === 'finished') await requireStoredChat(context, record.id);
  const key = keyOf(record, type);
  if (key === null) {
    throw new AppError('conflict', 'archive_not_ready', `${record.id} has no ${type} yet (status: ${record.status}).`);
  }
  if (type === 'video') flagIntegrity(record, reply);
  const direct = await context.store.directUrl(key, objectMeta(record, type));
  if (direct !== null) {
    // object storage serves the bytes (and Range) itself; counted as when Kura serves them
    const fromStart = request.headers.range === undefined || /^bytes=0-/.test(request.headers.range);
    if (type === 'video' && fromStart) await countIfDownload(context, request, record.id);
    return reply.redirect(direct, 307);
  }
  const object = await context.store.stat(key);
  if (object === null) throw new AppError('conflict', 'archive_not_ready', `The ${type} of ${record.id} is not in storage.`);
  return sendObject(context, request, reply, { record, type, key, size: object.bytes });
}

/** Throws `download_type_not_found` (404) for a type that is not one of the path's names. */
function typeOfPath(name: string): DownloadType {
  const type = TYPE_OF_PATH.get(name);
  if (type === undefined)
    throw new AppError('not_found', 'download_type_not_found', `There is no download type "${name}"; use video, log (or ffmpeg), thumbnail or chat.`);
  return type;
}

/** A video found missing is refused (410); one found corrupt is served, saying so in a header. */
function flagIntegrity(record: Livestream, reply: FastifyReply): void {
  const flag = record.integrity;
  if (flag?.state === 'missing') {
    throw new AppError(
      'gone',
      'archive_missing',
      `The video of ${record.id} was not in storage when it was verified (${flag.verifiedAt.toISOString()}). An operator can restore it and run "kura verify ${record.id}".`,
    );
  }
  if (flag?.state === 'corrupt') reply.header(INTEGRITY_HEADER, 'corrupt');
}

function keyOf(record: Livestream, type: DownloadType): string | null {
  if (type === 'video') return record.archive?.videoKey ?? null;
  if (type === 'log') return record.archive?.logKey ?? null;
  // stored at finalize beside the video, when the stream had a chat (checked before)
  if (type === 'chat') return record.status === 'finished' && record.archive?.videoKey ? objectKeys.chat(record.id) : null;
  return record.archive?.thumbnailKey ?? null;
}

async function sendObject(
  context: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  object: { record: Livestream; type: DownloadType; key: string; size: number },
) {
  const { record, type, key, size } = object;
  const range = parseRange(request.headers.range, size);
  reply.header('accept-ranges', 'bytes');
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw new AppError('range_not_satisfiable', 'range_not_satisfiable', `Range "${request.headers.range}" cannot be served from ${size} bytes.`);
  }
  const meta = objectMeta(record, type);
  reply.type(meta.contentType).header('content-disposition', meta.contentDisposition);
  if (meta.contentEncoding !== undefined) reply.header('content-encoding', meta.contentEncoding);
  if (type === 'video' && (range === undefined || range.start === 0)) await countIfDownload(context, request, record.id);
  if (range !== undefined) {
    reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
  }
  const length = range === undefined ? size : range.end - range.start + 1;
  reply.header('content-length', length);
  if (request.method === 'HEAD') return reply.send();
  return reply.send(await context.store.read(key, range));
}

const PLAYER_FETCH = new Set(['video', 'audio']);

async function countIfDownload(context: RouteContext, request: FastifyRequest, id: string): Promise<void> {
  if (request.method !== 'GET' || CRAWLER.test(request.headers['user-agent'] ?? '')) return;
  // a <video> element playing the archive (the web UI's player) fetches it many times: not a download
  if (PLAYER_FETCH.has(String(request.headers['sec-fetch-dest'] ?? ''))) return;
  await context.livestreams.countDownload(id);
}
