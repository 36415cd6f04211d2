import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackQueued } from '../../src/adapters/media/loopback-queue.js';

// Real loopback connections: what the kernel's socket buffers hold is read from /proc/net/tcp.
let server: net.Server;
let port: number;
const accepted: net.Socket[] = [];

beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.on('error', () => undefined); // a client closed with bytes unread resets the connection
    accepted.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** A client that reads nothing (past what Node buffers at once) and its accepted server side. */
async function idleClient(): Promise<{ client: net.Socket; served: net.Socket }> {
  const count = accepted.length;
  const client = net.connect(port, '127.0.0.1');
  client.on('error', () => undefined);
  client.pause();
  await new Promise<void>((resolve) => client.once('connect', resolve));
  await expect.poll(() => accepted.length).toBe(count + 1);
  return { client, served: accepted[count] as net.Socket };
}

describe('bytes a loopback client was sent and has not read', () => {
  it('counts the unread bytes of that one connection, in either socket buffer, and no other', async () => {
    const idle = await idleClient();
    const other = await idleClient();
    const bytes = 300 * 1024;
    await new Promise<void>((resolve, reject) => idle.served.write(Buffer.alloc(bytes, 1), (error) => (error ? reject(error) : resolve())));
    await new Promise<void>((resolve, reject) => other.served.write(Buffer.alloc(1000, 2), (error) => (error ? reject(error) : resolve())));
    const clientPort = idle.client.localPort as number;
    // what Node read into the paused client's stream is no longer the kernel's
    await expect.poll(() => loopbackQueued(port, clientPort)).toBe(bytes - idle.client.readableLength);
    expect(idle.client.readableLength).toBeLessThan(bytes / 2); // most of it is the kernel's to hold
    await expect.poll(() => loopbackQueued(port, other.client.localPort as number)).toBe(1000 - other.client.readableLength);

    idle.client.resume(); // read it all: nothing is left queued
    await expect.poll(() => loopbackQueued(port, clientPort)).toBe(0);
    idle.client.destroy();
    other.client.destroy();
  });

  it('counts nothing for a connection that does not exist', async () => {
    expect(await loopbackQueued(port, 1)).toBe(0);
  });
});
