// Decisions: docs/decisions/0115-meilisearch.md
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A task's error as Meilisearch gives it (https://www.meilisearch.com/docs/reference/errors). */
export interface MeiliError {
  message: string;
  code: string;
  type: 'invalid_request' | 'internal' | 'auth' | 'system';
  link: string;
}

/** A document Meilisearch refuses in a documents addition (its id is not one it takes): the whole task fails. */
export const INVALID_DOCUMENT_ID = (id: string): MeiliError => ({
  message: `Document identifier \`"${id}"\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`,
  code: 'invalid_document_id',
  type: 'invalid_request',
  link: 'https://docs.meilisearch.com/errors#invalid_document_id',
});

/** Meilisearch's own bad day: its disk is full, and every task fails until it is not. */
export const NO_SPACE_LEFT: MeiliError = {
  message: 'There was no space left on the device.',
  code: 'no_space_left_on_device',
  type: 'system',
  link: 'https://docs.meilisearch.com/errors#no_space_left_on_device',
};

interface Task {
  uid: number;
  indexUid: string;
  status: 'enqueued' | 'processing' | 'succeeded' | 'failed';
  type: string;
  error: MeiliError | null;
  /** When it ends, as `taskMs` after it was enqueued says. */
  endsAt: number;
}

/**
 * A MEILISEARCH DOUBLE: no Meilisearch server can run on a test machine, so this local HTTP
 * server stands in for the routes Kura's adapter calls (index creation, settings, documents,
 * keys, tasks), answers as Meilisearch documents them, and records every request. It searches
 * nothing, and keeps the documents its succeeded tasks added.
 *
 * As hard as Meilisearch (https://www.meilisearch.com/docs/reference/api/tasks): every change is
 * a task answered 202 and run later, whose outcome only `GET /tasks/{uid}` tells; knobs make
 * tasks slow (`taskMs`), refuse a documents addition that holds a document it will not take
 * (`refuse`: the whole task fails, `invalid_document_id`), or fail the next tasks for its own
 * reasons (`failNext`: `no_space_left_on_device`).
 */
export class MeilisearchDouble {
  readonly requests: RecordedRequest[] = [];
  /** API keys it holds, as `GET /keys` lists them. */
  readonly keys: Array<{ uid: string; name: string | null; key: string; actions: string[]; indexes: string[]; expiresAt: string | null }> = [];
  /** The documents of the index, by id, as its succeeded tasks left them. */
  readonly documents = new Map<string, Record<string, unknown>>();
  /** How long a task stays enqueued, then processing, before it ends (ms). */
  taskMs = 0;
  private refused: (document: Record<string, unknown>) => boolean = () => false;
  private failures: MeiliError[] = [];
  private readonly tasks = new Map<number, Task & { apply: () => MeiliError | null }>();
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

  /** Documents additions holding a document `match` accepts fail, whole, with invalid_document_id. */
  refuse(match: (document: Record<string, unknown>) => boolean): void {
    this.refused = match;
  }

  /** The next `count` tasks fail with `error` (default: a full disk). */
  failNext(count: number, error: MeiliError = NO_SPACE_LEFT): void {
    this.failures = Array.from({ length: count }, () => error);
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
    const task = /^\/tasks\/(\d+)$/.exec(path);
    if (request.method === 'GET' && task) return this.answerTask(Number(task[1]), json);
    // everything else is an asynchronous task in Meilisearch: 202 with a summary
    const enqueued = this.enqueue(request.method ?? '', path, body);
    return json(202, { taskUid: enqueued.uid, indexUid: 'kura', status: 'enqueued', type: enqueued.type, enqueuedAt: new Date().toISOString() });
  }

  private enqueue(method: string, path: string, body: unknown): Task {
    const documents = path.startsWith('/indexes/kura/documents');
    const type = !documents
      ? 'settingsUpdate'
      : path.endsWith('/delete-batch')
        ? 'documentDeletion'
        : method === 'DELETE'
          ? 'documentDeletion'
          : 'documentAdditionOrUpdate';
    const apply = (): MeiliError | null => {
      if (type === 'documentAdditionOrUpdate') {
        const added = body as Array<Record<string, unknown>>;
        const bad = added.find((document) => this.refused(document));
        if (bad) return INVALID_DOCUMENT_ID(String(bad.id));
        for (const document of added) this.documents.set(String(document.id), document);
      } else if (path.endsWith('/delete-batch')) for (const id of body as string[]) this.documents.delete(id);
      else if (type === 'documentDeletion') this.documents.clear();
      return null;
    };
    const task = { uid: ++this.taskUid, indexUid: 'kura', status: 'enqueued' as const, type, error: null, endsAt: Date.now() + this.taskMs, apply };
    this.tasks.set(task.uid, task);
    return task;
  }

  /** The task as it stands: ended once its time came, in the order enqueued (Meilisearch runs them one after another). */
  private answerTask(uid: number, json: (status: number, value: unknown) => void): void {
    const task = this.tasks.get(uid);
    if (task === undefined)
      return json(404, {
        message: `Task \`${uid}\` not found.`,
        code: 'task_not_found',
        type: 'invalid_request',
        link: 'https://docs.meilisearch.com/errors#task_not_found',
      });
    for (const earlier of this.tasks.values()) {
      if (earlier.uid > uid || Date.now() < earlier.endsAt || earlier.status === 'succeeded' || earlier.status === 'failed') continue;
      earlier.error = this.failures.shift() ?? earlier.apply();
      earlier.status = earlier.error === null ? 'succeeded' : 'failed';
    }
    const status = task.status === 'enqueued' && Date.now() >= task.endsAt - this.taskMs / 2 ? 'processing' : task.status;
    return json(200, { uid: task.uid, indexUid: task.indexUid, status, type: task.type, error: task.error });
  }
}
