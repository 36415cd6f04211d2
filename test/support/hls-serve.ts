import { open, readFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';

// How the HLS fixture's server answers: its files as a CDN serves them, a playlist as a test rewrites it.

const CONTENT_TYPES: Record<string, string> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.m4s': 'video/iso.segment',
  '.mp4': 'video/mp4',
};

/** Serves a file as a CDN would, with single byte ranges (`#EXT-X-BYTERANGE` streams need them); `missing` answers in place of a file not there yet (else 404). */
export function serve(root: string, requestPath: string, response: http.ServerResponse, rangeHeader: string | undefined, missing: string | null = null): void {
  const file = path.join(root, path.normalize(requestPath).replace(/^(\.\.[/\\])+/, ''));
  // opened before it is measured and read, so a playlist deleted or replaced meanwhile (goOffline)
  // is served whole as it was, not an ENOENT between the stat and the read
  open(file, 'r')
    .then(
      async (handle) => {
        const info = await handle.stat();
        const headers = { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
        const range = /^bytes=(\d+)-(\d+)$/.exec(rangeHeader ?? '');
        if (range === null) {
          response.writeHead(200, { ...headers, 'content-length': info.size });
          return void pipeline(handle.createReadStream(), response, () => undefined);
        }
        const start = Number(range[1]);
        const end = Math.min(Number(range[2]), info.size - 1);
        response.writeHead(206, { ...headers, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${info.size}` });
        pipeline(handle.createReadStream({ start, end }), response, () => undefined);
      },
      () =>
        missing === null
          ? response.writeHead(404).end()
          : response.writeHead(200, { 'content-type': CONTENT_TYPES['.m3u8'] as string, 'cache-control': 'no-cache' }).end(missing),
    )
    .catch(() => response.destroy());
}

/** Serves the playlist as `edit` rewrites it (or the announced one, edited, before the encoder wrote one). */
export function servePlaylist(file: string, response: http.ServerResponse, edit: (text: string) => string, missing: string | null): void {
  readFile(file, 'utf8').then(
    (text) => response.writeHead(200, { 'content-type': CONTENT_TYPES['.m3u8'] as string, 'cache-control': 'no-cache' }).end(edit(text)),
    () =>
      missing === null
        ? response.writeHead(404).end()
        : response.writeHead(200, { 'content-type': CONTENT_TYPES['.m3u8'] as string, 'cache-control': 'no-cache' }).end(edit(missing)),
  );
}
