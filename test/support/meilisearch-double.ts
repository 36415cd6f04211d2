// Decisions: docs/decisions/0051-meilisearch.md
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/**
 * A MEILISEARCH DOUBLE: no Meilisearch server can run on a test machine, so this local HTTP
 * server stands in for the routes Kura's adapter calls (index creation, settings, documents,
 * keys), answers as Meilisearch documents them, and records every request. It searches nothing.
 */
export class MeilisearchDouble {
  readonly requests: RecordedRequest[] = [];
  /** API keys it holds, as `GET /keys` lists them. */
  readonly keys: Array<{ uid: string; name: string | null; key: string; actions: string[]; indexes: string[]; expiresAt: string | null }> = [];
  private readonly listeners: Array<() => void> = [];
  private taskUid = 0;
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    readonly adminKey: string,
  ) {}

  static async start(adminKey: string): Promise<MeilisearchDouble> {
    let double: MeilisearchDouble | undefined;
    const server = http.createServer((request, response) => {
      let text = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (text += chunk));
      request.on('end', () => double?.answer(request, text, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    double = new MeilisearchDouble(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`, adminKey);
    return double;
  }

  /** Resolves at the next request the double records. */
  nextRequest(): Promise<void> {
    return new Promise((resolve) => this.listeners.push(resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: http.IncomingMessage, text: string, response: http.ServerResponse): void {
    const path = request.url ?? '/';
    const body = text === '' ? undefined : JSON.parse(text);
    this.requests.push({ method: request.method ?? '', path, authorization: request.headers.authorization, body });
    this.listeners.splice(0).forEach((wake) => wake());
    const json = (status: number, value: unknown): void => void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (request.headers.authorization !== `Bearer ${this.adminKey}`) {
      return json(403, {
        message: 'The provided API key is invalid.',
        code: 'invalid_api_key',
        type: 'auth',
        link: 'https://docs.meilisearch.com/errors#invalid_api_key',
      });
    }
    if (request.method === 'GET' && path.startsWith('/keys')) return json(200, { results: this.keys, offset: 0, limit: 1000, total: this.keys.length });
    if (request.method === 'POST' && path === '/keys') {
      const key = {
        uid: randomUUID(),
        key: `search-${randomBytes(16).toString('hex')}`,
        name: null,
        expiresAt: null,
        ...(body as object),
      } as MeilisearchDouble['keys'][number];
      this.keys.push(key);
      return json(201, key);
    }
    // everything else is an asynchronous task in Meilisearch: 202 with a summary
    return json(202, { taskUid: ++this.taskUid, indexUid: 'kura', status: 'enqueued', type: 'documentAdditionOrUpdate', enqueuedAt: new Date().toISOString() });
  }
}
