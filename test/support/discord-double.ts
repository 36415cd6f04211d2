// Decisions: docs/decisions/0060-discord-webhooks.md
import http from 'node:http';

/**
 * A test DOUBLE of Discord's "Execute Webhook" endpoint (there is no Discord here): a loopback
 * server at /api/webhooks/{id}/{token} that checks a body the way Discord documents it checks one
 * (JSON only; content, embeds or components present; at most 10 embeds; each embed's lengths,
 * field shapes, colour, timestamp and http(s) URLs; 6000 characters over all embeds), answers
 * 204 for a message it would post and 400 `50035 Invalid Form Body` with the reasons otherwise.
 */
export interface DiscordDouble {
  /** The webhook URL to post to (http, loopback). */
  url: string;
  /** Bodies it accepted, in order. */
  posted: Array<Record<string, unknown>>;
  /** Why it refused each body it refused, in order. */
  refused: string[][];
  close(): Promise<void>;
}

const WEBHOOK_ID = '112233445566778899';
const WEBHOOK_TOKEN = 'double-token_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ';

export async function startDiscordDouble(): Promise<DiscordDouble> {
  const posted: DiscordDouble['posted'] = [];
  const refused: DiscordDouble['refused'] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url?.split('?')[0] !== `/api/webhooks/${WEBHOOK_ID}/${WEBHOOK_TOKEN}`) {
        return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"message": "Unknown Webhook", "code": 10015}');
      }
      const problems = judge(request.headers['content-type'], Buffer.concat(chunks).toString('utf8'));
      if (problems.body === undefined || problems.reasons.length > 0) {
        refused.push(problems.reasons);
        const errors = Object.fromEntries(problems.reasons.map((reason, i) => [String(i), { _errors: [{ code: 'BASE_TYPE_INVALID', message: reason }] }]));
        return void response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Invalid Form Body', code: 50035, errors }));
      }
      posted.push(problems.body);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/api/webhooks/${WEBHOOK_ID}/${WEBHOOK_TOKEN}`,
    posted,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Json = Record<string, unknown>;

function judge(contentType: string | undefined, text: string): { body?: Json; reasons: string[] } {
  if (!/^application\/json\b/i.test(contentType ?? ''))
    return { reasons: [`content-type ${contentType ?? 'none'}: Discord takes application/json or multipart`] };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { reasons: ['the body is not JSON'] };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { reasons: ['the body is not an object'] };
  const json = body as Json;
  const reasons: string[] = [];
  const hasContent = typeof json.content === 'string' && json.content.length > 0;
  if (!hasContent && json.embeds === undefined && json.components === undefined) reasons.push('Cannot send an empty message (content, embeds or components)');
  if (typeof json.content === 'string' && json.content.length > 2000) reasons.push('content: longer than 2000');
  if (json.username !== undefined && !(typeof json.username === 'string' && json.username.length >= 1 && json.username.length <= 80))
    reasons.push('username: 1 to 80');
  if (typeof json.username === 'string' && /discord|clyde/i.test(json.username)) reasons.push('username: may not contain "discord" or "clyde"');
  if (json.embeds !== undefined) reasons.push(...judgeEmbeds(json.embeds));
  return { body: json, reasons };
}

function judgeEmbeds(embeds: unknown): string[] {
  if (!Array.isArray(embeds)) return ['embeds: not an array'];
  if (embeds.length > 10) return ['embeds: at most 10'];
  const judged = embeds.map((raw: unknown, i) => judgeEmbed((typeof raw === 'object' && raw !== null ? raw : {}) as Json, `embeds.${i}.`));
  const total = judged.reduce((sum, { characters }) => sum + characters, 0);
  return [...judged.flatMap(({ reasons }) => reasons), ...(total > 6000 ? [`embeds: ${total} characters, more than 6000 in all`] : [])];
}

/** One embed's problems, and the characters it counts toward the message's 6000. */
function judgeEmbed(embed: Json, at: string): { reasons: string[]; characters: number } {
  const reasons: string[] = [];
  let characters = 0;
  const text = (path: string, value: unknown, max: number, required = false) => {
    if (value === undefined && !required) return;
    if (typeof value !== 'string' || (required && value.length === 0)) return void reasons.push(`${at}${path}: a string is required`);
    if (value.length > max) reasons.push(`${at}${path}: longer than ${max}`);
    characters += value.length;
  };
  const link = (path: string, value: unknown) => {
    if (value !== undefined && (typeof value !== 'string' || !/^https?:\/\/\S+$/.test(value)))
      reasons.push(`${at}${path}: Scheme must be one of ('http', 'https')`);
  };
  const color = embed.color;
  if (embed.type !== undefined && embed.type !== 'rich') reasons.push(`${at}type: webhooks send rich embeds only`);
  text('title', embed.title, 256);
  text('description', embed.description, 4096);
  link('url', embed.url);
  if (color !== undefined && !(typeof color === 'number' && Number.isInteger(color) && color >= 0 && color <= 0xffffff))
    reasons.push(`${at}color: 0 to 16777215`);
  if (embed.timestamp !== undefined && (typeof embed.timestamp !== 'string' || Number.isNaN(Date.parse(embed.timestamp))))
    reasons.push(`${at}timestamp: ISO8601`);
  const author = embed.author as Json | undefined;
  if (author !== undefined) text('author.name', author.name, 256, true);
  link('author.url', author?.url);
  if (embed.footer !== undefined) text('footer.text', (embed.footer as Json).text, 2048, true);
  for (const media of ['thumbnail', 'image'] as const) if (embed[media] !== undefined) link(`${media}.url`, (embed[media] as Json).url);
  const fields = embed.fields;
  if (fields !== undefined && !Array.isArray(fields)) reasons.push(`${at}fields: not an array`);
  if (Array.isArray(fields) && fields.length > 25) reasons.push(`${at}fields: at most 25`);
  (Array.isArray(fields) ? (fields as Json[]) : []).forEach((field, f) => {
    text(`fields.${f}.name`, field.name, 256, true);
    text(`fields.${f}.value`, field.value, 1024, true);
    if (field.inline !== undefined && typeof field.inline !== 'boolean') reasons.push(`${at}fields.${f}.inline: a boolean`);
  });
  if (embed.title === undefined && embed.description === undefined && fields === undefined && author === undefined) reasons.push(`${at}: an empty embed`);
  return { reasons, characters };
}
