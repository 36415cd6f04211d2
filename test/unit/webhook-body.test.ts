import { describe, expect, it } from 'vitest';
import type { Livestream } from '../../src/core/records/livestream.js';
import type { OutboxEvent } from '../../src/core/notifications/webhook.js';
import { webhookBodies } from '../../src/adapters/notifications/webhook-body.js';
import { finishedRecord } from '../support/archives.js';

const PUBLIC_URL = 'https://kura.example';
const record: Livestream = {
  ...finishedRecord('rec-failed-1'),
  status: 'failed',
  failureReason: 'the source never went live',
  title: 'Karaoke night',
  downloadCount: 0,
  takedown: null,
  pinned: false,
  integrity: null,
  createdAt: new Date('2026-11-23T10:00:00Z'),
  updatedAt: new Date('2026-11-23T12:00:00Z'),
};
const event: OutboxEvent = { id: '42', type: 'livestream.failed', occurredAt: new Date('2026-11-23T12:00:00Z'), record, data: null };
const target = (url: string, owner: string | null = null) => ({ id: 'w1', url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', owner });

describe('what a webhook is sent for an event', () => {
  it('is the Standard Webhooks envelope, data the record as /api/history shows it', () => {
    const body = webhookBodies(PUBLIC_URL)(target('https://hooks.example/kura'), event) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(body.type).toBe('livestream.failed');
    expect(body.timestamp).toBe('2026-11-23T12:00:00.000Z');
    expect(body.data).toMatchObject({ id: 'rec-failed-1', title: 'Karaoke night', status: 'failed' });
  });

  it("carries the record's source URL whole to an instance webhook, redacted to a personal one", () => {
    const secret: OutboxEvent = { ...event, record: { ...record, sourceUrl: 'https://user:pa55word@cdn.example/live.m3u8?token=t0ken' } };
    const sourceOf = (owner: string | null) =>
      (webhookBodies(PUBLIC_URL)(target('https://hooks.example/kura', owner), secret) as { data: { sourceUrl: string } }).data.sourceUrl;
    expect(sourceOf(null)).toBe('https://user:pa55word@cdn.example/live.m3u8?token=t0ken');
    expect(sourceOf('local/alice')).toBe('https://cdn.example/live.m3u8?token=***');
  });

  it('is a Discord message with one embed for a Discord webhook URL, saying why the stream failed', () => {
    const body = webhookBodies(PUBLIC_URL)(
      target('https://discord.com/api/webhooks/1234567890123456789/Xq3vT9kLmN2pR7sW4yZ8aB1cD5eF6gH0iJ-kL_mN3oP4qR5sT6uV7wX8yZ9aB0cD1eF2gH'),
      event,
    ) as {
      embeds: Array<{ title: string; description?: string; fields?: Array<{ name: string; value: string }> }>;
    };
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0]?.title).toContain('Karaoke night');
    expect(JSON.stringify(body.embeds[0])).toContain('the source never went live');
    expect(body).not.toHaveProperty('type');
  });
});
