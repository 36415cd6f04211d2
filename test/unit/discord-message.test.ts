import { describe, expect, it } from 'vitest';
import { DISCORD_LIMITS, discordMessage, embedLength, type DiscordEvent } from '../../src/adapters/notifications/discord-message.js';
import { isDiscordWebhookUrl } from '../../src/adapters/notifications/discord-url.js';

const PUBLIC_URL = 'https://kura.example';
const ID = '112233445566778899';
const TOKEN = 'aBcDeFgHiJkLmNoPqRsTuVwXyZ_0123456789-aBcDeFgHiJkLmNoPqRsTuVwXyZ_01';

/** A record as /api/history shows it (record.schema.ts), with overrides. */
function buildRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'dQw4w9WgXcQ',
    submitters: ['local/alice'],
    scheduledStart: '2026-03-01T18:00:00.000Z',
    finished: false,
    title: 'Karaoke night',
    channelName: 'Suisei Ch.',
    channelId: 'UC5CwaMl1eIgY8h02uZw7u8A',
    thumbnail: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/maxresdefault.jpg',
    status: 'upcoming',
    platform: 'youtube',
    sourceUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    startedAt: null,
    endedAt: null,
    ...overrides,
  };
}

const event = (type: string, data: Record<string, unknown>): DiscordEvent => ({ type, timestamp: '2026-03-01T20:15:00.000Z', data });
const embedOf = (type: string, data: Record<string, unknown>) => discordMessage(event(type, data), { publicUrl: PUBLIC_URL }).embeds[0];

describe('which URLs Kura treats as a Discord webhook', () => {
  it.each([
    [`https://discord.com/api/webhooks/${ID}/${TOKEN}`, true],
    [`https://discordapp.com/api/webhooks/${ID}/${TOKEN}`, true],
    [`https://ptb.discord.com/api/webhooks/${ID}/${TOKEN}`, true],
    [`https://canary.discord.com/api/webhooks/${ID}/${TOKEN}`, true],
    [`https://canary.discordapp.com/api/webhooks/${ID}/${TOKEN}`, true],
    [`https://discord.com/api/v10/webhooks/${ID}/${TOKEN}`, true],
    [`https://DISCORD.com/api/webhooks/${ID}/${TOKEN}?thread_id=123`, true],
    [`https://discord.com:443/api/webhooks/${ID}/${TOKEN}`, true],
    // not Discord, or not its Execute Webhook endpoint
    [`http://discord.com/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://discord.com.evil.example/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://evil-discord.com/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://discord.com.%65vil.example/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://evil.example/discord.com/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://discord.com@evil.example/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://user:pass@discord.com/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://discord.com:8443/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://media.discord.com/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://discord.gg/api/webhooks/${ID}/${TOKEN}`, false],
    [`https://discord.com/api/webhooks/${ID}/${TOKEN}/slack`, false],
    [`https://discord.com/api/webhooks/${ID}/${TOKEN}/github`, false],
    [`https://discord.com/api/webhooks/${ID}`, false],
    [`https://discord.com/api/webhooks/not-a-number/${TOKEN}`, false],
    ['https://discord.com/channels/1/2', false],
    ['not a url', false],
    ['', false],
  ])('%s → %s', (url, expected) => {
    expect(isDiscordWebhookUrl(url)).toBe(expected);
  });
});

describe('the Discord message for each event', () => {
  it('livestream.queued: the stream linked to its archive page, the channel, the thumbnail and the scheduled start', () => {
    const message = discordMessage(event('livestream.queued', buildRecord()), { publicUrl: `${PUBLIC_URL}/` });
    expect(message).toMatchObject({ username: 'Kura', allowed_mentions: { parse: [] } });
    expect(message.embeds).toHaveLength(1);
    expect(message.embeds[0]).toEqual({
      title: 'Karaoke night',
      url: 'https://kura.example/archive/dQw4w9WgXcQ',
      description: 'Queued: Kura will record this stream when it starts.',
      color: 0x3498db,
      timestamp: '2026-03-01T20:15:00.000Z',
      author: { name: 'Suisei Ch.', url: 'https://kura.example/channel/UC5CwaMl1eIgY8h02uZw7u8A' },
      thumbnail: { url: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/maxresdefault.jpg' },
      fields: [{ name: 'Scheduled start', value: '<t:1772388000:F> (<t:1772388000:R>)', inline: true }],
    });
  });

  it('livestream.live: when it started', () => {
    const embed = embedOf('livestream.live', buildRecord({ status: 'live', startedAt: '2026-03-01T18:02:03.000Z' }));
    expect(embed).toMatchObject({ title: 'Karaoke night', color: 0xed4245, description: 'Live: Kura is recording it now.' });
    expect(embed.fields).toEqual([{ name: 'Started', value: '<t:1772388123:F> (<t:1772388123:R>)', inline: true }]);
  });

  it('livestream.finished: duration as h:mm:ss, size in GB or MB, and the download', () => {
    const finished = buildRecord({
      status: 'finished',
      finished: true,
      length: 3 * 3600 + 4 * 60 + 5,
      fileSizeBytes: 2_345_000_000,
      downloadUrl: 'https://kura.example/api/download/dQw4w9WgXcQ/video',
      thumbnail: 'https://kura.example/api/download/dQw4w9WgXcQ/thumbnail',
    });
    const embed = embedOf('livestream.finished', finished);
    expect(embed).toMatchObject({
      url: 'https://kura.example/archive/dQw4w9WgXcQ',
      color: 0x57f287,
      thumbnail: { url: 'https://kura.example/api/download/dQw4w9WgXcQ/thumbnail' },
    });
    expect(embed.fields).toEqual([
      { name: 'Duration', value: '3:04:05', inline: true },
      { name: 'Size', value: '2.35 GB', inline: true },
      { name: 'Download', value: '[video](https://kura.example/api/download/dQw4w9WgXcQ/video)', inline: true },
    ]);
    const short = embedOf('livestream.finished', buildRecord({ length: 59, fileSizeBytes: 734_512_345 }));
    expect(short.fields?.slice(0, 2).map((field) => field.value)).toEqual(['0:00:59', '734.5 MB']);
  });

  it('livestream.failed: why, shown as written rather than as markdown', () => {
    const embed = embedOf('livestream.failed', buildRecord({ status: 'failed', failureReason: 'source_unreachable: HTTP 403 for *all* segments' }));
    expect(embed).toMatchObject({ color: 0xe67e22, description: 'Failed: Kura could not archive this stream.' });
    expect(embed.fields).toEqual([{ name: 'Reason', value: 'source\\_unreachable: HTTP 403 for \\*all\\* segments' }]);
    expect(embedOf('livestream.failed', buildRecord({ status: 'failed' })).fields).toEqual([{ name: 'Reason', value: 'no reason was recorded' }]);
  });

  it('moment.added: the stream linked, and the moment’s time and text, shown as written', () => {
    const embed = embedOf('moment.added', {
      ...buildRecord({ status: 'live' }),
      moment: { id: 'm1', at: 3723.5, text: 'Song *not bold*', author: 'local/alice' },
    });
    expect(embed?.title).toBe('Karaoke night');
    expect(embed?.url).toBe(`${PUBLIC_URL}/archive/dQw4w9WgXcQ`);
    expect(embed?.description).toBe('A moment was marked.');
    expect(embed?.fields).toEqual([{ name: 'At 1:02:03', value: 'Song \\*not bold\\*' }]);
  });

  it('livestream.removed: no link to an archive page or thumbnail that no longer exist', () => {
    const embed = embedOf('livestream.removed', buildRecord({ reason: 'DMCA notice' }));
    expect(embed).toMatchObject({
      title: 'Karaoke night',
      color: 0x95a5a6,
      description: 'Removed from the archive by an admin.',
      author: { name: 'Suisei Ch.' },
    });
    expect(embed.url).toBeUndefined();
    expect(embed.thumbnail).toBeUndefined();
    expect(embed.fields).toEqual([{ name: 'Reason', value: 'DMCA notice' }]);
  });

  it('follow.unhealthy: the follow, since when, and each failing signal with its last error', () => {
    const follow = {
      id: 'f_12',
      kind: 'youtube_channel',
      url: 'https://www.youtube.com/channel/UC5CwaMl1eIgY8h02uZw7u8A',
      channelName: 'Suisei Ch.',
      health: 'unhealthy',
      failingSince: '2026-03-01T19:00:00.000Z',
      signals: [
        { signal: 'feed', lastError: 'HTTP 500 from the feed', lastOkAt: null },
        { signal: 'tabs', lastError: null },
        { signal: 'holodex', lastError: 'timed out after 10 s' },
      ],
    };
    const embed = embedOf('follow.unhealthy', follow);
    expect(embed).toMatchObject({
      title: 'Follow unhealthy: Suisei Ch.',
      url: 'https://kura.example/follows/f_12',
      color: 0xfee75c,
      author: { name: 'Suisei Ch.' },
    });
    expect(embed.description).toContain('since <t:1772391600:F>');
    expect(embed.fields).toEqual([
      { name: 'feed: last error', value: 'HTTP 500 from the feed' },
      { name: 'holodex: last error', value: 'timed out after 10 s' },
    ]);
  });

  it('webhook.test: a short message saying the webhook works', () => {
    expect(embedOf('webhook.test', {})).toEqual({
      title: 'Kura test event',
      description: 'This webhook works: Kura will post here.',
      color: 0x5865f2,
      timestamp: '2026-03-01T20:15:00.000Z',
    });
  });

  it('an event type it does not know still gives a valid embed naming it', () => {
    expect(embedOf('archive.corrupt', { id: 'x' })).toMatchObject({ title: 'Kura: archive.corrupt' });
  });

  it('data of the wrong kinds is left out rather than shown as NaN or [object Object]', () => {
    const embed = embedOf(
      'livestream.finished',
      buildRecord({ title: 42, length: 'long', fileSizeBytes: -1, thumbnail: 'javascript:alert(1)', downloadUrl: '/relative' }),
    );
    expect(embed.title).toBe('dQw4w9WgXcQ');
    expect(embed.thumbnail).toBeUndefined();
    expect(embed.fields).toBeUndefined();
  });
});

describe("Discord's limits", () => {
  it('cuts title, author and field values with … to their limits', () => {
    const embed = embedOf('livestream.failed', buildRecord({ title: 'T'.repeat(300), channelName: 'C'.repeat(300), failureReason: 'r'.repeat(2000) }));
    expect(embed.title).toHaveLength(DISCORD_LIMITS.title);
    expect(embed.title.endsWith('T…')).toBe(true);
    expect(embed.author?.name).toHaveLength(DISCORD_LIMITS.authorName);
    expect(embed.fields?.[0]?.value).toHaveLength(DISCORD_LIMITS.fieldValue);
    expect(embed.fields?.[0]?.value.endsWith('…')).toBe(true);
  });

  it('does not split an emoji when cutting', () => {
    const title = `${'a'.repeat(254)}🎤🎤`;
    const embed = embedOf('livestream.queued', buildRecord({ title }));
    expect(embed.title).toBe(`${'a'.repeat(254)}…`);
  });

  it('keeps at most 25 fields and 6000 characters in all, however much a follow reports', () => {
    const signals = Array.from({ length: 40 }, (_, i) => ({ signal: `signal-${i}`, lastError: 'e'.repeat(1500) }));
    const embed = embedOf('follow.unhealthy', { id: 'f_1', channelName: 'N'.repeat(300), url: `https://example.com/${'u'.repeat(5000)}`, signals });
    expect(embed.fields?.length).toBeLessThanOrEqual(DISCORD_LIMITS.fields);
    expect(embed.description?.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(embedLength(embed)).toBeLessThanOrEqual(DISCORD_LIMITS.total);
    expect(embed.fields?.length).toBeGreaterThan(0);
  });
});
