// Decisions: docs/decisions/0001-errors-are-problem-json.md
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { FrameworkCode } from './request-problems.js';
import { PROBLEM_MEDIA_TYPE } from './responses.schema.js';

/** A refusal of Node's HTTP parser, before any route is known: a status, a stable code and a sentence. */
interface SocketProblem {
  status: number;
  code: FrameworkCode;
  detail: string;
}

/** The parser errors of a request that is not valid HTTP/1.1, by llhttp's code. */
const MALFORMED: Readonly<Record<string, string>> = {
  HPE_INVALID_HEADER_TOKEN: 'A header name or value holds a character HTTP does not allow (such as NUL or another control character).',
  HPE_INVALID_METHOD: 'The method is not one HTTP defines.',
  HPE_INVALID_URL: 'The request target holds a character HTTP does not allow (such as NUL, a space or another control character).',
  HPE_INVALID_CONTENT_LENGTH: 'The Content-Length header is not a single decimal number.',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'The request has both Content-Length and Transfer-Encoding.',
  HPE_INVALID_TRANSFER_ENCODING: 'The Transfer-Encoding header is not one Kura reads (chunked last).',
  HPE_INVALID_CHUNK_SIZE: 'A chunk size of the chunked body is not hexadecimal.',
  HPE_INVALID_VERSION: 'The HTTP version is not 1.0 or 1.1.',
};

/**
 * What a request Node's parser refused is answered: 414 `url_too_long` when the request line alone
 * fills the header section limit, 431 `headers_too_large` when the headers do, 408
 * `request_timeout`, and 400 (`invalid_header` for a bad header character, else
 * `malformed_request`) for a request that is not valid HTTP/1.1. Null: the client is gone.
 */
export function socketProblem(error: { code?: string; rawPacket?: unknown }): SocketProblem | null {
  switch (error.code) {
    case 'ECONNRESET':
      return null;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', detail: 'The request did not arrive in time; send it again.' };
    case 'HPE_HEADER_OVERFLOW':
      return isRequestLineTooLong(Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined)
        ? { status: 414, code: 'url_too_long', detail: `The URL is longer than Kura reads (${maxHeaderSize} bytes with the headers).` }
        : { status: 431, code: 'headers_too_large', detail: `The request's headers are larger than Kura reads (${maxHeaderSize} bytes with the URL).` };
    case 'HPE_INVALID_HEADER_TOKEN':
      return { status: 400, code: 'invalid_header', detail: MALFORMED.HPE_INVALID_HEADER_TOKEN ?? '' };
    default:
      return { status: 400, code: 'malformed_request', detail: MALFORMED[error.code ?? ''] ?? 'The request is not valid HTTP/1.1.' };
  }
}

/**
 * Whether the header section overflowed in its request line: the packet the parser choked on
 * starts with a request line that has not ended, or that alone is as long as the limit. A packet
 * from the middle of a long request (a slow client's) says nothing of where it began: 431 then.
 */
function isRequestLineTooLong(packet: Buffer | undefined): boolean {
  if (packet === undefined || !/^[A-Z]+ /.test(packet.subarray(0, 16).toString('latin1'))) return false;
  const end = packet.indexOf('\r\n');
  return end === -1 || end >= maxHeaderSize;
}

/**
 * Node's `clientError`: a problem document written on the socket by hand (no request exists to
 * answer through), then the connection closed, as Node itself does.
 */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  const problem = socket.destroyed ? null : socketProblem(error);
  if (problem === null) return;
  this.log.trace({ err: error }, 'client error');
  if (socket.writable) socket.write(problemResponse(problem));
  socket.destroy(error);
}

/** A whole HTTP/1.1 response holding a problem document. */
export function problemResponse({ status, code, detail }: SocketProblem): string {
  const title = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({ type: 'about:blank', title, status, detail, code });
  const head = [
    `HTTP/1.1 ${status} ${title}`,
    `content-type: ${PROBLEM_MEDIA_TYPE}; charset=utf-8`,
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}
