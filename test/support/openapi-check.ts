// Decisions: docs/decisions/0005-openapi-and-changelog.md
import net from 'node:net';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The parts of an OpenAPI 3.1 document the checker reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: Record<string, unknown>;
}

export interface OpenApiOperation {
  parameters?: Array<{ name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean; schema: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: unknown }> }>;
}

/** An answer as the checker needs it, from inject or from a raw socket. */
export interface Answer {
  status: number;
  contentType: string | undefined;
  body: string;
}

/** The document as a JSON pointer fragment names it (RFC 6901). */
const pointer = (...segments: string[]) => segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
const mediaTypeOf = (contentType: string) => (contentType.split(';')[0] ?? '').trim().toLowerCase();

/**
 * Checks answers against the document: the status is declared for the operation (exactly, by its
 * range such as 4XX, or as default), the content type is declared for that status (or no body is
 * sent when none is declared), and a JSON body is valid against the declared schema.
 * Returns what does not match, in words; an empty list when all does.
 */
export function createAnswerChecker(spec: OpenApiDocument): (path: string, method: string, answer: Answer) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema(spec as object, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (ref: string) => {
    let validate = validators.get(ref);
    if (validate === undefined) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
    return validate;
  };

  return (path, method, answer) => {
    const operation = spec.paths[path]?.[method];
    if (operation === undefined) return [`${method} ${path} is not in the document`];
    const statusKey = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find((key) => key in operation.responses);
    if (statusKey === undefined) return [`status ${answer.status} is not declared (declared: ${Object.keys(operation.responses).join(', ')})`];
    const content = operation.responses[statusKey]?.content;
    if (content === undefined) return answer.body === '' ? [] : [`a body (${answer.contentType}) where ${statusKey} declares none`];
    // a text document may be empty (a record's chapter lines when it has no moments); nothing else may
    const emptyText = answer.contentType?.startsWith('text/plain') === true && 'text/plain' in content;
    if (answer.body === '' && !emptyText) return [`no body where ${statusKey} declares ${Object.keys(content).join(', ')}`];
    const mediaType = mediaTypeOf(answer.contentType ?? '');
    const key = Object.keys(content).find((declared) => mediaTypeOf(declared) === mediaType);
    if (key === undefined) return [`content type ${answer.contentType} is not declared for ${statusKey} (declared: ${Object.keys(content).join(', ')})`];
    if (!/[/+]json$/.test(mediaType)) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [`the ${mediaType} body is not JSON`];
    }
    const validate = validatorOf(`openapi#/${pointer('paths', path, method, 'responses', statusKey, 'content', key, 'schema')}`);
    if (validate(body)) return [];
    return [`the body does not match the ${statusKey} ${key} schema: ${ajv.errorsText(validate.errors)}`];
  };
}

/** Sends bytes as they are on a new connection to the server and reads its whole answer (it closes). */
export function rawExchange(port: number, request: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request, 'latin1'));
    socket.on('data', (chunk) => chunks.push(chunk));
    // the server may close before it read all that was sent: the answer is still there
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split(/\r\n\r\n(.*)/s);
      const [statusLine = '', ...headers] = head.split('\r\n');
      const contentType = headers.find((h) => /^content-type:/i.test(h))?.replace(/^content-type:\s*/i, '');
      resolve({ status: Number(statusLine.split(' ')[1]), contentType, body });
    });
  });
}
