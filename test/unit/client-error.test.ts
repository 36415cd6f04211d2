import { maxHeaderSize } from 'node:http';
import { describe, expect, it } from 'vitest';
import { problemResponse, socketProblem } from '../../src/http/client-error.js';

const overflow = (packet: string) => ({ code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from(packet, 'latin1') });

describe("what a request Node's HTTP parser refused is answered", () => {
  it('tells a URL too long (414) from headers too large (431) by the packet the parser choked on', () => {
    expect(socketProblem(overflow(`GET /${'x'.repeat(maxHeaderSize)}`))?.code).toBe('url_too_long');
    expect(socketProblem(overflow(`GET /${'x'.repeat(maxHeaderSize)} HTTP/1.1\r\nhost: a\r\n`))?.code).toBe('url_too_long');
    expect(socketProblem(overflow(`GET /a HTTP/1.1\r\nx-big: ${'y'.repeat(maxHeaderSize)}`))?.code).toBe('headers_too_large');
    // a request line shorter than the limit with large headers: the headers are what is too large
    expect(socketProblem(overflow(`GET /${'x'.repeat(maxHeaderSize / 2)} HTTP/1.1\r\nx-big: ${'y'.repeat(maxHeaderSize)}`))?.code).toBe('headers_too_large');
    // a packet from the middle of a slow request says nothing of where it began
    expect(socketProblem(overflow('x'.repeat(1000)))?.code).toBe('headers_too_large');
    expect(socketProblem({ code: 'HPE_HEADER_OVERFLOW' })?.status).toBe(431);
  });

  it('answers a timeout 408, a bad header 400 invalid_header, anything else not HTTP 400 malformed_request, and nothing to a client gone', () => {
    expect(socketProblem({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(socketProblem({ code: 'HPE_INVALID_HEADER_TOKEN' })).toMatchObject({ status: 400, code: 'invalid_header' });
    expect(socketProblem({ code: 'HPE_INVALID_METHOD' })).toMatchObject({
      status: 400,
      code: 'malformed_request',
      detail: 'The method is not one HTTP defines.',
    });
    expect(socketProblem({ code: 'HPE_SOMETHING_NEW' })).toMatchObject({
      status: 400,
      code: 'malformed_request',
      detail: 'The request is not valid HTTP/1.1.',
    });
    expect(socketProblem({ code: 'ECONNRESET' })).toBeNull();
  });

  it('writes a whole HTTP/1.1 response whose Content-Length counts the bytes of the problem document', () => {
    const response = problemResponse({ status: 431, code: 'headers_too_large', detail: 'Trop grand — too large.' });
    const [head = '', body = ''] = response.split('\r\n\r\n');
    expect(head.split('\r\n')).toEqual([
      'HTTP/1.1 431 Request Header Fields Too Large',
      'content-type: application/problem+json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ]);
    expect(JSON.parse(body)).toEqual({
      type: 'about:blank',
      title: 'Request Header Fields Too Large',
      status: 431,
      detail: 'Trop grand — too large.',
      code: 'headers_too_large',
    });
  });
});
