import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { acceptWebSocket, frame, OPCODE, readFrames } from './websocket-frames.js';

// A STAND-IN for Twitch's IRC over WebSocket (wss://irc-ws.chat.twitch.tv:443), on 127.0.0.1,
// answering as Twitch's documentation says its server does (https://dev.twitch.tv/docs/chat/irc/,
// read 2026-11):
// - Login: `CAP REQ :twitch.tv/tags twitch.tv/commands` is acknowledged (`CAP * ACK`); a NICK
//   `justinfan` + digits with any PASS is an anonymous, read-only login (as chat-downloader's
//   TwitchChatIRC logs in: `PASS SCHMOOPIIE`, `NICK justinfan67420`), answered `001`…; any other
//   NICK is `NOTICE * :Login authentication failed` and the connection is closed.
// - JOIN #channel: echoed (`:nick!nick@nick.tmi.twitch.tv JOIN #channel`), then the names list
//   (353, 366) and, with the tags capability, ROOMSTATE. A suspended channel (`suspended` knob) is
//   `NOTICE #channel :This channel does not exist or has been suspended.` (msg_channel_suspended).
// - Several lines may share one WebSocket message, each ending in CRLF.
// - Chat: PRIVMSG and USERNOTICE with the tags of the docs' PRIVMSG and USERNOTICE tags sections
//   (`id`, `tmi-sent-ts`, `display-name`, `user-id`, `badges`, `emotes`, `bits`, `login`,
//   `system-msg`), values escaped as IRCv3 message-tags says (`\s` a space, `\:` a `;`, `\\`).
// - Keepalive: `PING :tmi.twitch.tv`, to be answered `PONG :tmi.twitch.tv`; unanswered for
//   `pongWithinMs`, the server closes the connection ("Twitch IRC… closes the connection").
// - RECONNECT (`:tmi.twitch.tv RECONNECT`): "Twitch IRC processes occasionally need to be
//   restarted… After a short time, the connection is closed": closed by the server after
//   `reconnectGraceMs` unless the client left first.
// - Drops (a connection lost without a close frame) and refused connections: the knobs `drop()`
//   and `refuse`, which a network or Twitch's edge does to any client.

export interface StandInConnection {
  /** The lines the client sent, in order (CAP, PASS, NICK, JOIN, PONG…). */
  received: string[];
  /** The numbers of the stand-in's chat messages sent on this connection. */
  sent: number[];
  /** Who ended the connection: the client (a close frame, or the socket ended), the server (after RECONNECT, an unanswered PING), or a drop. */
  closedBy: 'client' | 'server' | 'drop' | null;
}

export interface TwitchIrcStandIn {
  /** `ws://127.0.0.1:PORT`, for KURA_TWITCH_CHAT_URL. */
  url: string;
  connections: StandInConnection[];
  /** Connections to refuse (503, before the upgrade) before the next is accepted. */
  refuse: number;
  /** Channels that answer JOIN with Twitch's notice that they do not exist or are suspended. */
  suspended: Set<string>;
  /** Resolves with the connection of the `count`-th JOIN received (counted from the first connection). */
  joined(count: number): Promise<StandInConnection>;
  /** Sends PING on the newest joined connection; resolves once its PONG came back, rejects if the connection closed first. */
  ping(): Promise<void>;
  /** Sends RECONNECT on the newest joined connection and closes it `reconnectGraceMs` later unless its client leaves first. */
  reconnect(): void;
  /** Destroys the newest connection's TCP socket without a close frame, as a lost network does. */
  drop(): void;
  /** Sends chat message n (messageLines), sent now, to every joined connection. */
  chat(n: number): void;
  /** When each message was sent (its `tmi-sent-ts`), by number. */
  sentAt: Map<number, number>;
  /** Sends chat messages every `everyMs` (message 1, 2, …) until stop() or close(). */
  chatter(everyMs: number): { stop(): void };
  close(): Promise<void>;
}

interface Live {
  record: StandInConnection;
  socket: Duplex;
  nick: string;
  channel: string | null;
  onPong: Array<() => void>;
  onClose: Array<() => void>;
}

export async function startTwitchIrcStandIn(options: { reconnectGraceMs?: number; pongWithinMs?: number } = {}): Promise<TwitchIrcStandIn> {
  const graceMs = options.reconnectGraceMs ?? 10_000;
  const pongWithinMs = options.pongWithinMs ?? 10_000;
  const live: Live[] = [];
  const joins: Array<{ count: number; resolve: (c: StandInConnection) => void }> = [];
  let joinCount = 0;
  const server = http.createServer((_req, res) => res.writeHead(426).end());
  const standIn: TwitchIrcStandIn = {
    url: '',
    connections: [],
    refuse: 0,
    suspended: new Set(),
    joined: (count) => new Promise((resolve) => (joinCount >= count ? resolve(joinedAt(count)) : joins.push({ count, resolve }))),
    ping() {
      const connection = newestJoined();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => end(connection, 'server'), pongWithinMs);
        connection.onPong.push(() => {
          clearTimeout(timer);
          resolve();
        });
        connection.onClose.push(() => {
          clearTimeout(timer);
          reject(new Error('the connection closed before its PONG'));
        });
        send(connection, 'PING :tmi.twitch.tv');
      });
    },
    reconnect() {
      const connection = newestJoined();
      send(connection, ':tmi.twitch.tv RECONNECT');
      const timer = setTimeout(() => end(connection, 'server'), graceMs);
      connection.onClose.push(() => clearTimeout(timer));
    },
    drop() {
      const connection = live.at(-1);
      if (connection !== undefined) end(connection, 'drop');
    },
    sentAt: new Map(),
    chat(n) {
      const sentAt = Date.now();
      standIn.sentAt.set(n, sentAt);
      for (const connection of live.filter((c) => c.channel !== null)) {
        send(connection, messageLines(n, connection.channel as string, sentAt).join('\r\n'));
        connection.record.sent.push(n);
      }
    },
    chatter(everyMs) {
      let n = 0;
      const timer = setInterval(() => standIn.chat(++n), everyMs);
      chatters.push(timer);
      return { stop: () => clearInterval(timer) };
    },
    async close() {
      for (const timer of chatters) clearInterval(timer);
      for (const connection of [...live]) end(connection, 'server');
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const chatters: NodeJS.Timeout[] = [];
  const joinedOrder: StandInConnection[] = [];
  const joinedAt = (count: number) => joinedOrder[count - 1] as StandInConnection;
  const newestJoined = (): Live => {
    const connection = live.filter((c) => c.channel !== null).at(-1);
    if (connection === undefined) throw new Error('no client has joined a channel');
    return connection;
  };

  const send = (connection: Live, text: string) => connection.socket.write(frame(OPCODE.text, `${text}\r\n`));
  function end(connection: Live, by: 'client' | 'server' | 'drop') {
    const index = live.indexOf(connection);
    if (index === -1) return;
    live.splice(index, 1);
    connection.record.closedBy = by;
    if (by === 'drop') connection.socket.destroy();
    else connection.socket.end(frame(OPCODE.close, Buffer.from([0x03, 0xe8])));
    for (const listener of connection.onClose) listener();
  }

  function onLine(connection: Live, line: string) {
    connection.record.received.push(line);
    const [command = '', ...rest] = line.split(' ');
    const argument = rest.join(' ');
    if (command === 'CAP') send(connection, `:tmi.twitch.tv CAP * ACK ${argument.replace(/^REQ /, '')}`);
    else if (command === 'NICK') {
      connection.nick = argument;
      if (!/^justinfan\d+$/.test(argument)) {
        send(connection, ':tmi.twitch.tv NOTICE * :Login authentication failed');
        return end(connection, 'server');
      }
      const nick = argument;
      send(connection, [1, 2, 3, 4, 372, 376].map((code) => `:tmi.twitch.tv ${String(code).padStart(3, '0')} ${nick} :-`).join('\r\n'));
    } else if (command === 'JOIN') {
      const channel = argument.replace(/^#/, '');
      if (standIn.suspended.has(channel))
        return send(connection, `@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #${channel} :This channel does not exist or has been suspended.`);
      const { nick } = connection;
      connection.channel = channel;
      send(
        connection,
        [
          `:${nick}!${nick}@${nick}.tmi.twitch.tv JOIN #${channel}`,
          `:${nick}.tmi.twitch.tv 353 ${nick} = #${channel} :${nick}`,
          `:${nick}.tmi.twitch.tv 366 ${nick} #${channel} :End of /NAMES list`,
          `@emote-only=0;followers-only=-1;r9k=0;room-id=12826;slow=0;subs-only=0 :tmi.twitch.tv ROOMSTATE #${channel}`,
        ].join('\r\n'),
      );
      joinedOrder.push(connection.record);
      joinCount += 1;
      for (const waiting of joins.filter((j) => j.count <= joinCount)) waiting.resolve(joinedAt(waiting.count));
      joins.splice(0, joins.length, ...joins.filter((j) => j.count > joinCount));
    } else if (command === 'PONG' && argument === ':tmi.twitch.tv') for (const listener of connection.onPong.splice(0)) listener();
  }

  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex) => {
    if (standIn.refuse > 0) {
      standIn.refuse -= 1;
      return socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
    if (!acceptWebSocket(request, socket)) return;
    const record: StandInConnection = { received: [], sent: [], closedBy: null };
    const connection: Live = { record, socket, nick: '', channel: null, onPong: [], onClose: [] };
    standIn.connections.push(record);
    live.push(connection);
    socket.on('error', () => end(connection, 'drop'));
    socket.on('close', () => end(connection, 'client'));
    readFrames(socket, (opcode, payload) => {
      if (opcode === OPCODE.close) return end(connection, 'client');
      if (opcode === OPCODE.ping) return void socket.write(frame(OPCODE.pong, payload));
      if (opcode !== OPCODE.text) return;
      for (const line of payload.toString('utf8').split('\r\n')) if (line !== '') onLine(connection, line);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}

/**
 * Chat message n of `channel`, sent at `sentAt` (ms), as Twitch writes it: every 10th a USERNOTICE (a resub: Twitch's
 * words, then the viewer's), the others PRIVMSG; every 11th the broadcaster's, every 7th a
 * moderator's, every 5th a subscriber's; every 3rd begins with the emote Kappa (id 25); every
 * 13th a cheer of 100 bits; display names with an escaped `;` and backslash every 4th.
 */
export function messageLines(n: number, channel: string, sentAt: number): string[] {
  const login = n % 11 === 0 ? channel : `viewer${n % 17}`;
  const displayName = n % 11 === 0 ? 'Alice' : n % 4 === 0 ? `Viewer\\:${n % 17}\\\\` : `Viewer${n % 17}`;
  const badges = [n % 11 === 0 ? 'broadcaster/1' : '', n % 7 === 0 ? 'moderator/1' : '', n % 5 === 0 ? 'subscriber/6' : '', 'glhf-pledge/1'].filter(Boolean);
  const text = `${n % 3 === 0 ? 'Kappa ' : ''}message ${n}${n % 13 === 0 ? ' Cheer100' : ''}`;
  const tags = [
    `badge-info=${n % 5 === 0 ? 'subscriber/6' : ''}`,
    `badges=${badges.join(',')}`,
    ...(n % 13 === 0 ? ['bits=100'] : []),
    'color=#1E90FF',
    `display-name=${displayName}`,
    `emotes=${n % 3 === 0 ? '25:0-4' : ''}`,
    'first-msg=0',
    'flags=',
    `id=${standInMessageId(n)}`,
    `mod=${n % 7 === 0 ? 1 : 0}`,
    'room-id=12826',
    `subscriber=${n % 5 === 0 ? 1 : 0}`,
    `tmi-sent-ts=${sentAt}`,
    'turbo=0',
    `user-id=${100_000 + (n % 17)}`,
    `user-type=${n % 7 === 0 ? 'mod' : ''}`,
  ];
  if (n % 10 === 0) {
    const system = `${displayName}\\ssubscribed\\sat\\sTier\\s1.\\sThey've\\ssubscribed\\sfor\\s6\\smonths!`;
    return [`@${tags.join(';')};login=${login};msg-id=resub;msg-param-cumulative-months=6;system-msg=${system} :tmi.twitch.tv USERNOTICE #${channel} :${text}`];
  }
  return [`@${tags.join(';')} :${login}!${login}@${login}.tmi.twitch.tv PRIVMSG #${channel} :${text}`];
}

/** Twitch's message ids are UUIDs: message n's. */
export const standInMessageId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
