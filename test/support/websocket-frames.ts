import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';

// The least of RFC 6455 a test's WebSocket server needs (the STAND-IN of Twitch's IRC over
// WebSocket, test/support/twitch-irc-stand-in.ts): the opening handshake (§4.2.2), and frames
// (§5.2): a client's, always masked, read; the server's, never masked, written. Text, close
// and ping frames; a message in several frames is joined. No extensions, no subprotocols.
// Written here because no WebSocket server library is among Kura's dependencies.

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
export const OPCODE = { continuation: 0, text: 1, close: 8, ping: 9, pong: 10 } as const;

/** Answers the opening handshake of `request` on `socket` (101 Switching Protocols); false, the socket ended with 400, when it is no WebSocket's. */
export function acceptWebSocket(request: http.IncomingMessage, socket: Duplex): boolean {
  const key = request.headers['sec-websocket-key'];
  if (request.headers.upgrade?.toLowerCase() !== 'websocket' || typeof key !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return false;
  }
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  return true;
}

/** One server frame: FIN set, unmasked, the payload's length in 7, 16 or 64 bits. */
export function frame(opcode: number, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const length = body.length;
  const head = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (length < 126) head[1] = length;
  else if (length < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, body]);
}

/** Reads a client's frames from `socket` as they arrive: each whole message (text joined across continuation frames), each control frame, to `onFrame`. */
export function readFrames(socket: Duplex, onFrame: (opcode: number, payload: Buffer) => void): void {
  let pending = Buffer.alloc(0);
  let message: { opcode: number; parts: Buffer[] } | null = null;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const read = readOne(pending);
      if (read === null) return;
      pending = pending.subarray(read.size);
      if (read.opcode >= OPCODE.close) {
        onFrame(read.opcode, read.payload);
        continue;
      }
      message ??= { opcode: read.opcode, parts: [] };
      message.parts.push(read.payload);
      if (read.fin) {
        onFrame(message.opcode, Buffer.concat(message.parts));
        message = null;
      }
    }
  });
}

function readOne(data: Buffer): { fin: boolean; opcode: number; payload: Buffer; size: number } | null {
  if (data.length < 2) return null;
  const fin = ((data[0] as number) & 0x80) !== 0;
  const opcode = (data[0] as number) & 0x0f;
  const masked = ((data[1] as number) & 0x80) !== 0;
  let length = (data[1] as number) & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (data.length < 4) return null;
    length = data.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (data.length < 10) return null;
    length = Number(data.readBigUInt64BE(2));
    offset = 10;
  }
  const maskAt = offset;
  if (masked) offset += 4;
  if (data.length < offset + length) return null;
  const payload = Buffer.from(data.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (data[maskAt + (i % 4)] as number);
  return { fin, opcode, payload, size: offset + length };
}
