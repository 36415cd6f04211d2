// Decisions: docs/decisions/0076-logs-an-operator-reads.md
import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import pino, { type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Config } from '../config/config.js';
import { redactingSink } from '../http/log-redaction.js';
import { escapeControls } from '../cli/terminal-text.js';

/** The process's log, on stdout: lines a person reads on a terminal, JSON otherwise (LOG_FORMAT). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'kura' } }, redactingSink(destination(config, 1)));
}

/**
 * A CLI command's log: on stderr, so stdout carries the command's result alone (`ID=$(kura follow
 * add …)`). Its destination is made at its first line: most commands log none, and on a terminal
 * they need not load pino-pretty.
 */
export function createCommandLogger(config: Pick<Config, 'logLevel' | 'logFormat'>): Logger {
  let sink: DestinationStream | undefined;
  return pino({ level: config.logLevel, base: { service: 'kura' } }, redactingSink({ write: (line: string) => (sink ??= destination(config, 2)).write(line) }));
}

/** Where lines go, as written: `pretty` (or `auto` on a terminal) one readable line each, else one JSON object each. */
function destination(config: Pick<Config, 'logFormat'>, fd: 1 | 2): DestinationStream {
  const readable = config.logFormat === 'pretty' || (config.logFormat === 'auto' && isatty(fd));
  if (!readable) return pino.destination({ dest: fd, sync: true });
  // loaded only here (40–80 ms of every start otherwise), and run in this thread, synchronously:
  // a worker thread per process would cost more than the lines
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({
    destination: fd,
    sync: true,
    colorize: isatty(fd),
    singleLine: true,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss',
    ignore: 'pid,hostname,service',
    // a message names titles and channels streamers chose: nothing in it acts on the terminal
    messageFormat: (line, messageKey) => escapeControls(String(line[messageKey] ?? '')),
  });
}
