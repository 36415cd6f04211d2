// Decisions: docs/decisions/0137-twitch-chat-over-irc.md
import { randomInt } from 'node:crypto';
import type { ChatMessage } from '../../core/chat/chat.js';
import type { ChatSource } from '../../core/chat/ports.js';
import { parseIrcLine, readTwitchMessage } from './twitch-irc.js';

export interface TwitchChatOptions {
  /** Twitch's IRC over WebSocket: `wss://irc-ws.chat.twitch.tv:443` (KURA_TWITCH_CHAT_URL). */
  url: string;
  /** Connections tried in a row without joining the chat before it is given up (rejected). */
  tries?: number;
  /** The wait before the second try; each next one waits twice as long. */
  firstRetryMs?: number;
  /** Silence after which the connection is taken as dead (Twitch sends a PING about every five minutes). */
  quietMs?: number;
}

/** How one connection ended: the capture stopped, Twitch asked for a new connection, or it failed or dropped. */
type Outcome = { kind: 'stopped' } | { kind: 'reconnect' } | { kind: 'dropped'; joined: boolean; reason: string };

/**
 * A Twitch channel's chat, read as an anonymous viewer does: Twitch's IRC over WebSocket, logged
 * in as `justinfan` + digits (no account, read only), the tags and commands capabilities asked
 * for, the channel joined. A PING is answered with PONG; a RECONNECT (Twitch restarting a server)
 * or a dropped connection is followed by a new one, after 1 s, 2 s, 4 s… when connections fail
 * in a row; `tries` of them failing before any joins rejects with the last reason. IRC keeps no
 * history: what is said while no connection is joined is not received. Ends ('ended') only when
 * `signal` aborts: a channel's chat room outlives its broadcasts, the capture decides when to stop.
 */
export function createTwitchChatSource(options: TwitchChatOptions): ChatSource {
  const tries = options.tries ?? 5;
  const firstRetryMs = options.firstRetryMs ?? 1000;
  return {
    async follow(sourceUrl, onMessage, signal) {
      const channel = twitchChannelOf(sourceUrl);
      if (channel === null) return 'none';
      let failed = 0;
      while (!signal.aborted) {
        const outcome = await connectOnce(options, channel, onMessage, signal);
        if (outcome.kind === 'reconnect') failed = 0;
        if (outcome.kind !== 'dropped') continue;
        failed = outcome.joined ? 1 : failed + 1;
        if (failed >= tries) throw new Error(`Twitch's chat of #${channel} could not be read (${failed} connections in a row): ${outcome.reason}`);
        await delay(firstRetryMs * 2 ** (failed - 1), signal);
      }
      return 'ended';
    },
  };
}

/** The channel (login, lower case) a Twitch record's URL names (`https://www.twitch.tv/alice#kura-broadcast=…`); null for another URL. */
export function twitchChannelOf(sourceUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(sourceUrl);
  } catch {
    return null;
  }
  if (!/^((www|m|go)\.)?twitch\.tv$/i.test(url.hostname)) return null;
  const login = url.pathname.split('/')[1] ?? '';
  return /^[a-z0-9_]{1,25}$/i.test(login) ? login.toLowerCase() : null;
}

function connectOnce(options: TwitchChatOptions, channel: string, onMessage: (m: ChatMessage) => void, signal: AbortSignal): Promise<Outcome> {
  const nick = `justinfan${randomInt(10_000, 100_000)}`;
  return new Promise((resolve) => {
    let over = false;
    let joined = false;
    let reconnect = false;
    let reason: string | null = null;
    let quiet: NodeJS.Timeout | undefined;
    let socket: WebSocket;
    const end = (outcome: Outcome) => {
      if (over) return;
      over = true;
      clearTimeout(quiet);
      signal.removeEventListener('abort', stop);
      if (socket.readyState === WebSocket.CLOSED) return resolve(outcome);
      // the connection is left before the next one opens, or the capture goes on: a socket that will not close is let go after a while
      const leaving = setTimeout(() => resolve(outcome), LEAVE_MS);
      socket.addEventListener('close', () => {
        clearTimeout(leaving);
        resolve(outcome);
      });
      if (socket.readyState !== WebSocket.CLOSING) socket.close();
    };
    const stop = () => end({ kind: 'stopped' });
    const heard = () => {
      clearTimeout(quiet);
      quiet = setTimeout(
        () => end({ kind: 'dropped', joined, reason: `no word from Twitch for ${(options.quietMs ?? QUIET_MS) / 1000} s` }),
        options.quietMs ?? QUIET_MS,
      );
    };
    try {
      socket = new WebSocket(options.url);
    } catch (error) {
      resolve({ kind: 'dropped', joined: false, reason: (error as Error).message });
      return;
    }
    signal.addEventListener('abort', stop, { once: true });
    heard();
    socket.addEventListener('open', () => {
      // PASS: any word logs a justinfan in; SCHMOOPIIE is the one Twitch's own web client sent
      for (const line of ['CAP REQ :twitch.tv/tags twitch.tv/commands', 'PASS SCHMOOPIIE', `NICK ${nick}`, `JOIN #${channel}`]) socket.send(`${line}\r\n`);
    });
    socket.addEventListener('message', (event: MessageEvent) => {
      if (over) return;
      heard();
      for (const raw of String(event.data).split('\r\n')) {
        const line = parseIrcLine(raw);
        if (line === null) continue;
        if (line.command === 'PING') socket.send(`PONG :${line.params[0] ?? 'tmi.twitch.tv'}\r\n`);
        else if (line.command === 'JOIN' && line.nick === nick) joined = true;
        else if (line.command === 'RECONNECT') {
          reconnect = true;
          return end({ kind: 'reconnect' });
        } else if (line.command === 'NOTICE' && !joined) {
          // refused before joining: a failed login, a suspended channel (Twitch's words)
          reason = `Twitch said: ${line.params.at(-1) ?? ''}`;
          return end({ kind: 'dropped', joined, reason });
        } else {
          const message = readTwitchMessage(line);
          if (message !== null) onMessage(message);
        }
      }
    });
    socket.addEventListener('error', (event) => {
      reason ??= (event as ErrorEvent).message || 'the WebSocket failed';
    });
    socket.addEventListener('close', (event) => {
      if (!reconnect) end({ kind: 'dropped', joined, reason: reason ?? `the connection closed (${event.code}${event.reason ? `: ${event.reason}` : ''})` });
    });
  });
}

/** How long a connection being left is waited for (its closing handshake). */
const LEAVE_MS = 5000;
/** Twitch pings about every five minutes: a minute more with no word at all means the connection is gone. */
const QUIET_MS = 6 * 60_000;

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
