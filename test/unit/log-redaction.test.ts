import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { redactingSink } from '../../src/http/log-redaction.js';
import { issueCallerKey } from '../../src/http/search/caller-search-key.js';

const FEED_TOKEN = `kura_feed_${'A1b2-_'.repeat(7)}x`;
const API_TOKEN = `kura_${'Z9y8_-'.repeat(7)}q`;

/** A pino logger as Kura's, writing its lines into `lines` through the redacting sink. */
function collectingLogger(lines: string[]) {
  return pino({ level: 'info' }, redactingSink({ write: (line: string) => lines.push(line) }));
}

describe('log lines', () => {
  it('never hold a feed token or an API token, in a URL, a field or a message', () => {
    const lines: string[] = [];
    const log = collectingLogger(lines);
    log.info({ req: { url: `/feeds/archives.atom?channelId=c&feed_token=${FEED_TOKEN}` } }, 'feed read');
    log.warn({ query: { feed_token: 'mistyped-secret' } }, `refused /api/download/x/video?feed_token=${FEED_TOKEN}&a=1`);
    log.error(`a script sent ${API_TOKEN} where a feed token goes: feed_token%3Dsomething-secret`);
    const text = lines.join('');
    expect(lines).toHaveLength(3);
    for (const secret of [FEED_TOKEN, API_TOKEN, 'mistyped-secret', 'something-secret']) expect(text).not.toContain(secret);
    expect(text).toContain('feed_token=[redacted]&a=1');
    expect(text).toContain('channelId=c&feed_token=[redacted]');
    expect(text).toContain('kura_[redacted] where');
  });

  it("never hold a private instance's search key", () => {
    const lines: string[] = [];
    const key = issueCallerKey('stored-key', { via: 'session', hash: Buffer.alloc(32, 7) }, 2_000_000_000);
    collectingLogger(lines).warn({ headers: { authorization: `Bearer ${key}` } }, `search refused for ${key}`);
    const text = lines.join('');
    expect(text).not.toContain(key.split('.')[1]);
    expect(text).toContain('Bearer kura_search_[redacted]');
    expect(text).toContain('search refused for kura_search_[redacted]');
  });

  it('keep what holds no secret as it was', () => {
    const lines: string[] = [];
    collectingLogger(lines).info({ channel: 'kura_livestreams_changed' }, 'GET /api/history?page=2');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ channel: 'kura_livestreams_changed', msg: 'GET /api/history?page=2' });
  });
});
