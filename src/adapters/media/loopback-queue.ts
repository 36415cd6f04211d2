import { readFile } from 'node:fs/promises';

const LOOPBACK = new Set(['0100007F', '7F000001']); // 127.0.0.1 as /proc prints it, either byte order
const ESTABLISHED = '01';

/**
 * Bytes the kernel holds on one established 127.0.0.1 connection, from a local server's `port`
 * to a client's `clientPort`: the server side's send queue (written, not yet acknowledged) plus
 * the client side's receive queue (received, not yet read) — what the client was sent but has not
 * read. Read from `/proc/net/tcp` (Linux); null where that cannot be read. A read walks the
 * kernel's whole connection table (milliseconds here), so it is for occasional use.
 */
export async function loopbackQueued(port: number, clientPort: number): Promise<number | null> {
  const table = await readFile('/proc/net/tcp', 'latin1').catch(() => null);
  if (table === null) return null;
  const server = hexPort(port);
  const client = hexPort(clientPort);
  let queued = 0;
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue ...
    const [, local = '', remote = '', state, queues = ''] = line.trim().split(/\s+/);
    const [localAddress = '', localPort] = local.split(':');
    const [remoteAddress = '', remotePort] = remote.split(':');
    if (state !== ESTABLISHED || !LOOPBACK.has(localAddress) || !LOOPBACK.has(remoteAddress)) continue;
    const [tx = 0, rx = 0] = queues.split(':').map((hex) => parseInt(hex, 16));
    if (localPort === server && remotePort === client) queued += tx;
    else if (localPort === client && remotePort === server) queued += rx;
  }
  return queued;
}

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
