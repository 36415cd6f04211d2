import type { Socket } from 'node:net';
import { loopbackQueued } from './loopback-queue.js';
import type { InputPacing } from './part-server.js';

/** How often a held response looks again whether its client has read on. */
const LOOK_MS = 5;

/**
 * Pacing of a part server's responses that keeps each client's unread bytes (the kernel's buffers
 * on loopback, which grow to megabytes, and Node's) near `bytes`: what a client leaves unread when
 * it seeks elsewhere (ffmpeg after reading an MP4's index) is read from the store for nothing, and
 * on S3 that is paid for. Looked at every `bytes / 2` sent on a connection; where the kernel's
 * figures cannot be read, nothing is held.
 */
export function unreadBound(bytes: number): InputPacing {
  const sentSinceLook = new WeakMap<Socket, number>();
  return {
    requested: () => undefined,
    async beforeWrite(length, socket) {
      if (socket === undefined) return;
      const sent = (sentSinceLook.get(socket) ?? 0) + length;
      sentSinceLook.set(socket, sent < bytes / 2 ? sent : 0);
      if (sent < bytes / 2) return;
      while (!socket.destroyed && socket.localPort !== undefined && socket.remotePort !== undefined) {
        const queued = await loopbackQueued(socket.localPort, socket.remotePort);
        if (queued === null || queued + socket.writableLength <= bytes / 2) return;
        await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
      }
    },
  };
}
