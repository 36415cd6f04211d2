import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discordMessage, type DiscordEvent } from '../../src/adapters/notifications/discord-message.js';
import { createOutboundClient, type OutboundClient } from '../../src/adapters/outbound/outbound-client.js';
import { startDiscordDouble, type DiscordDouble } from '../support/discord-double.js';

// Kura's Discord message, posted through THE outbound client (as deliveries go out) to a double of
// Discord's Execute Webhook that validates the body the way Discord documents it does.
let discord: DiscordDouble;
let outbound: OutboundClient;
beforeAll(async () => {
  discord = await startDiscordDouble();
  outbound = createOutboundClient({ allowPrivate: true });
});
afterAll(() => discord.close());

const PUBLIC_URL = 'http://kura.example:8080';
const record = (overrides: Record<string, unknown> = {}) => ({
  id: 'abc123',
  submitters: ['local/alice'],
  scheduledStart: '2026-03-01T18:00:00.000Z',
  finished: false,
  title: 'Late-night chat 🎤',
  channelName: 'Suisei Ch.',
  channelId: 'UC5CwaMl1eIgY8h02uZw7u8A',
  thumbnail: 'https://i.ytimg.com/vi/abc123/maxresdefault.jpg',
  status: 'upcoming',
  platform: 'youtube',
  sourceUrl: 'https://www.youtube.com/watch?v=abc123',
  startedAt: null,
  endedAt: null,
  ...overrides,
});

/** Posts a body as delivery does: POST, JSON, answered 2xx when Discord would post it. */
async function post(body: unknown, contentType = 'application/json') {
  const response = await outbound.send(discord.url, { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify(body) });
  const text = await response.body.text();
  return { status: response.statusCode, text };
}

const events: DiscordEvent[] = [
  { type: 'livestream.queued', timestamp: '2026-03-01T17:00:00.000Z', data: record() },
  { type: 'livestream.live', timestamp: '2026-03-01T18:00:05.000Z', data: record({ status: 'live', startedAt: '2026-03-01T18:00:04.000Z' }) },
  {
    type: 'livestream.finished',
    timestamp: '2026-03-01T21:00:00.000Z',
    data: record({ status: 'finished', finished: true, downloadUrl: `${PUBLIC_URL}/api/download/abc123/video`, fileSizeBytes: 3_210_000_000, length: 10_805 }),
  },
  { type: 'livestream.failed', timestamp: '2026-03-01T18:30:00.000Z', data: record({ status: 'failed', failureReason: 'x'.repeat(5000) }) },
  { type: 'livestream.removed', timestamp: '2026-03-02T09:00:00.000Z', data: record({ status: 'finished', reason: 'DMCA' }) },
  {
    type: 'follow.unhealthy',
    timestamp: '2026-03-01T20:00:00.000Z',
    data: {
      id: 'f_1',
      channelName: 'N'.repeat(400),
      url: 'https://www.youtube.com/channel/UC5CwaMl1eIgY8h02uZw7u8A',
      failingSince: '2026-03-01T19:00:00.000Z',
      signals: Array.from({ length: 30 }, (_, i) => ({ signal: `s${i}`, lastError: 'e'.repeat(2000) })),
    },
  },
  { type: 'webhook.test', timestamp: '2026-03-01T12:00:00.000Z', data: {} },
];

describe('a Discord webhook gets a message Discord accepts', () => {
  it.each(events.map((event) => [event.type, event] as const))('%s is accepted (204) as one embed', async (_type, event) => {
    const before = discord.posted.length;
    const answer = await post(discordMessage(event, { publicUrl: PUBLIC_URL }));
    expect(answer, JSON.stringify(discord.refused.at(-1))).toEqual({ status: 204, text: '' });
    expect(discord.posted).toHaveLength(before + 1);
    const [embed] = discord.posted.at(-1)?.embeds as Array<Record<string, unknown>>;
    expect(embed?.title).toEqual(expect.any(String));
  });

  it('the finished archive arrives linked to its archive page, with channel, thumbnail, duration and size', async () => {
    const finished = events.find((event) => event.type === 'livestream.finished') as DiscordEvent;
    expect((await post(discordMessage(finished, { publicUrl: PUBLIC_URL }))).status).toBe(204);
    expect(discord.posted.at(-1)).toMatchObject({
      username: 'Kura',
      embeds: [
        {
          title: 'Late-night chat 🎤',
          url: `${PUBLIC_URL}/archive/abc123`,
          author: { name: 'Suisei Ch.' },
          thumbnail: { url: 'https://i.ytimg.com/vi/abc123/maxresdefault.jpg' },
          fields: expect.arrayContaining([
            { name: 'Duration', value: '3:00:05', inline: true },
            { name: 'Size', value: '3.21 GB', inline: true },
          ]),
        },
      ],
    });
  });
});

describe('the Discord double refuses what Discord refuses (so the tests above can fail)', () => {
  it('the raw Standard Webhooks event: a message with no content or embeds', async () => {
    const answer = await post(events[0]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
    expect(discord.refused.at(-1)).toEqual(['Cannot send an empty message (content, embeds or components)']);
  });

  it('an embed over the limits, and a body that is not JSON', async () => {
    const over = { embeds: [{ title: 't'.repeat(257), fields: [{ name: 'n', value: 'v'.repeat(1025) }], thumbnail: { url: 'ftp://x/y.jpg' } }] };
    expect((await post(over)).status).toBe(400);
    expect(discord.refused.at(-1)).toEqual([
      'embeds.0.title: longer than 256',
      "embeds.0.thumbnail.url: Scheme must be one of ('http', 'https')",
      'embeds.0.fields.0.value: longer than 1024',
    ]);
    expect((await post(discordMessage(events[6] as DiscordEvent, { publicUrl: PUBLIC_URL }), 'text/plain')).status).toBe(400);
  });
});
