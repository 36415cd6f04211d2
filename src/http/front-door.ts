// Decisions: docs/decisions/0117-read-cache-with-a-front-door.md
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ReadCache } from './read-cache.js';

/** What the door reports of each request it answered, for the request metrics: the route pattern and how long it took. */
export type DoorObserver = (route: string, seconds: number) => void;

/**
 * A GET whose answer cannot depend on who sends it: no credentials (a cookie, an Authorization
 * header) and no Origin (CORS answers vary by it), and no body.
 */
export function isAnonymousGet(request: IncomingMessage): boolean {
  const { headers } = request;
  return (
    request.method === 'GET' &&
    headers.cookie === undefined &&
    headers.authorization === undefined &&
    headers.origin === undefined &&
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined
  );
}

/**
 * Answers an anonymous GET of a URL the read cache already answered, from the HTTP server's
 * request event, before Fastify builds its request and reply and runs the hooks: the same status,
 * headers and body a cache hit through the route would send, for a fraction of its cost. Every
 * other request, and every URL the cache does not hold a fresh answer for, goes on to Fastify.
 * Answers nothing until `open`; a private instance never opens it.
 */
export class FrontDoor {
  /** Requests answered so far (`kura_front_door_answers_total`). */
  answered = 0;

  /**
   * Stands in front of `server`'s request handler (Fastify's), answering from `cache` and
   * reporting each answer to `observe`; a request the door does not answer goes on to the
   * handler. Fastify's own server is kept, with its limits and bindings (a second server it binds
   * for another address of the host name is left without the door).
   */
  open(server: Server, cache: ReadCache, observe: DoorObserver): void {
    const handlers = server.listeners('request') as RequestHandler[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (!this.answer(cache, observe, request, response)) for (const handler of handlers) handler.call(server, request, response);
    });
  }

  /** Answers `request` if `cache` holds its URL's answer; false: Fastify must. */
  private answer(cache: ReadCache, observe: DoorObserver, request: IncomingMessage, response: ServerResponse): boolean {
    if (request.url === undefined || !isAnonymousGet(request)) return false;
    const started = performance.now();
    const answer = cache.answerFor(request.url);
    if (answer === undefined) return false;
    response.writeHead(200, answer.headers);
    response.end(answer.body);
    this.answered += 1;
    observe(answer.route, (performance.now() - started) / 1000);
    return true;
  }
}

type RequestHandler = (this: Server, request: IncomingMessage, response: ServerResponse) => void;

/** An answer the door replays: the route's pattern, every header it sent but the date, its body. */
export interface DoorAnswer {
  route: string;
  headers: Record<string, string | number | string[] | undefined>;
  body: Buffer;
}
