import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_USD_PER_GB_MONTH, loadConfig, parseConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('reads KURA_YTDLP_COOKIES as a path from the working directory', () => {
    expect(parseConfig({ KURA_YTDLP_COOKIES: 'secrets/cookies.txt' }, '/srv/kura').ytdlpCookies).toBe('/srv/kura/secrets/cookies.txt');
    expect(parseConfig({ KURA_YTDLP_COOKIES: '/etc/kura/cookies.txt' }, '/srv/kura').ytdlpCookies).toBe('/etc/kura/cookies.txt');
  });

  it("reads KURA_TWITCH_CHAT_URL: Twitch's IRC over WebSocket unless another ws:// or wss:// URL is named", () => {
    expect(parseConfig({ KURA_TWITCH_CHAT_URL: 'ws://127.0.0.1:6667' }).twitchChatUrl).toBe('ws://127.0.0.1:6667');
    for (const wrong of ['https://irc-ws.chat.twitch.tv', 'irc-ws.chat.twitch.tv:443', 'wss://'])
      expect(() => parseConfig({ KURA_TWITCH_CHAT_URL: wrong }), wrong).toThrow('KURA_TWITCH_CHAT_URL must be a ws:// or wss:// URL');
  });

  it('reads KURA_YTDLP_CHANNEL: stable unless nightly is asked for', () => {
    expect(parseConfig({}, '/srv/kura').ytdlpChannel).toBe('stable');
    expect(parseConfig({ KURA_YTDLP_CHANNEL: 'nightly' }, '/srv/kura').ytdlpChannel).toBe('nightly');
  });

  it("reads KURA_HLS_AUDIO: an HLS variant's default audio rendition, or all of them, and nothing else", () => {
    expect(parseConfig({ KURA_HLS_AUDIO: 'all' }, '/srv/kura').hlsAudio).toBe('all');
    expect(() => parseConfig({ KURA_HLS_AUDIO: 'ja' }, '/srv/kura')).toThrow(/KURA_HLS_AUDIO/);
  });

  it('has documented defaults', () => {
    const config = parseConfig({}, '/srv/kura');
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:8080',
      dataDir: '/srv/kura/data',
      systemDir: '/var/lib/kura',
      databaseUrl: undefined,
      dbPoolMax: 10,
      role: 'all',
      workerPort: null,
      usdPerGbPerMonth: DEFAULT_USD_PER_GB_MONTH,
      publicRead: true,
      corsOrigins: ['*'],
      originalHeaders: false,
      trustProxy: [],
      twitchChatUrl: 'wss://irc-ws.chat.twitch.tv:443',
      logLevel: 'info',
      logFormat: 'auto',
      readCacheEntries: 1000,
      allowPrivateSources: false,
      hlsAudio: 'default',
      ffmpegPath: 'ffmpeg',
      ffprobePath: 'ffprobe',
      ytdlpPath: null,
      ytdlpCookies: null,
      ytdlpAutoUpdate: true,
      ytdlpChannel: 'stable',
      storage: { kind: 'fs' },
      capture: {
        maxCaptures: 4,
        idleSeconds: 90,
        unreachableSeconds: 600,
        offlineSeconds: 30,
        maxSeconds: 43_200,
        maxBytes: 100e9,
        minFreeBytes: 1024 * 1024 * 1024,
        neverLiveSeconds: 43_200,
        watchPollSeconds: 15,
        staleAfterSeconds: 30,
        jobPollSeconds: 300,
        chunkBytes: 64 * 1024 * 1024,
        chunkSeconds: 0,
      },
      accounts: {
        oauth: {},
        oidc: undefined,
        admins: [],
        sources: ['youtube', 'hls', 'twitch', 'site'],
        allowedChannels: [],
        submitLimit: { limit: 20, windowSeconds: 3600 },
        lookupLimit: { limit: 60, windowSeconds: 60 },
        loginLimit: { limit: 10, windowSeconds: 900 },
      },
      search: { kind: 'builtin' },
      verify: { everyDays: 30, bytesPerHour: 10e9 },
      follow: {
        intervals: { feed: 600, tabs: 3600, holodex: 900, playlist: 4.5, helix: 15 },
        horizonSeconds: 48 * 3600,
        hostRequestsPerMinute: 60,
        concurrency: 4,
        youtubeFeedUrl: 'https://www.youtube.com/feeds/videos.xml',
        holodexUrl: 'https://holodex.net/api/v2',
        holodexApiKey: undefined,
        twitch: undefined,
      },
      retention: { keepLast: null, maxAgeDays: null, maxGb: null },
      backup: { dir: null, keep: 7 },
      clips: { maxSeconds: 3600, atOnce: 4, perCaller: 1 },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('refuses a pool of fewer than two connections: the job queue setup holds one while it queries on another', () => {
    expect(() => parseConfig({ KURA_DB_POOL_MAX: '1' })).toThrow(
      expect.objectContaining({ problems: [expect.stringMatching(/^KURA_DB_POOL_MAX must be a whole number from 2 to 1000/)] }),
    );
  });

  it('reads the follows slice: one poll interval for every signal, fixture URLs, and refuses what makes no sense', () => {
    const follow = parseConfig({ KURA_FOLLOW_POLL_SECONDS: '1', KURA_YOUTUBE_FEED_URL: 'http://127.0.0.1:9/feeds/', HOLODEX_API_KEY: 'k' }).follow;
    expect(follow.intervals).toEqual({ feed: 1, tabs: 1, holodex: 1, playlist: 1, helix: 1 });
    expect(follow).toMatchObject({ youtubeFeedUrl: 'http://127.0.0.1:9/feeds', holodexApiKey: 'k' });
    expect(() => parseConfig({ KURA_FOLLOW_POLL_SECONDS: '0', KURA_FOLLOW_CONCURRENCY: 'many', KURA_HOLODEX_URL: 'ftp://x' })).toThrow(
      expect.objectContaining({
        problems: [
          expect.stringMatching(/^KURA_FOLLOW_POLL_SECONDS must be a number from 1 to 86400/),
          expect.stringMatching(/^KURA_FOLLOW_CONCURRENCY must be a whole number/),
          expect.stringMatching(/^KURA_HOLODEX_URL must be an http\(s\) URL/),
        ],
      }),
    );
  });

  it('reads a Twitch application: both its id and secret, or neither', () => {
    expect(parseConfig({ KURA_TWITCH_CLIENT_ID: 'id', KURA_TWITCH_CLIENT_SECRET: 'secret' }).follow.twitch).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      apiUrl: 'https://api.twitch.tv/helix',
      authUrl: 'https://id.twitch.tv/oauth2',
      eventSub: null,
    });
    expect(() => parseConfig({ KURA_TWITCH_CLIENT_ID: 'id' })).toThrow(
      expect.objectContaining({ problems: [expect.stringMatching(/^KURA_TWITCH_CLIENT_ID and KURA_TWITCH_CLIENT_SECRET go together/)] }),
    );
  });

  it('turns Twitch EventSub on where Twitch can call (https on 443), off where told, and on by force only with credentials', () => {
    const app = { KURA_TWITCH_CLIENT_ID: 'id', KURA_TWITCH_CLIENT_SECRET: 'secret' };
    const eventSub = (env: Record<string, string>) => parseConfig({ ...app, ...env }).follow.twitch?.eventSub;
    const on = eventSub({ KURA_PUBLIC_URL: 'https://kura.example.org:443/' });
    expect(on?.callbackUrl).toBe('https://kura.example.org/api/twitch/eventsub');
    // derived from the client secret: 64 hex characters (Twitch takes 10 to 100), the same in every process, another for another secret
    expect(on?.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(eventSub({ KURA_PUBLIC_URL: 'https://kura.example.org' })?.secret).toBe(on?.secret);
    expect(parseConfig({ ...app, KURA_TWITCH_CLIENT_SECRET: 'other', KURA_PUBLIC_URL: 'https://kura.example.org' }).follow.twitch?.eventSub?.secret).not.toBe(
      on?.secret,
    );
    expect(on?.secret).not.toContain('secret');
    expect(eventSub({ KURA_PUBLIC_URL: 'https://kura.example.org/archive' })?.callbackUrl).toBe('https://kura.example.org/archive/api/twitch/eventsub');
    expect(eventSub({ KURA_PUBLIC_URL: 'http://kura.example.org' })).toBeNull();
    expect(eventSub({ KURA_PUBLIC_URL: 'https://kura.example.org:8443' })).toBeNull();
    expect(eventSub({ KURA_PUBLIC_URL: 'https://kura.example.org', KURA_TWITCH_EVENTSUB: 'off' })).toBeNull();
    expect(eventSub({ KURA_PUBLIC_URL: 'http://127.0.0.1:8080', KURA_TWITCH_EVENTSUB: 'on' })?.callbackUrl).toBe('http://127.0.0.1:8080/api/twitch/eventsub');
    expect(() => parseConfig({ KURA_TWITCH_EVENTSUB: 'on' })).toThrow(
      expect.objectContaining({ problems: ['KURA_TWITCH_EVENTSUB=on needs KURA_TWITCH_CLIENT_ID and KURA_TWITCH_CLIENT_SECRET'] }),
    );
    expect(() => parseConfig({ ...app, KURA_TWITCH_EVENTSUB: 'yes' })).toThrow(
      expect.objectContaining({ problems: ['KURA_TWITCH_EVENTSUB must be auto, on or off (got "yes")'] }),
    );
  });

  it('reads the scheduled backups: off unless KURA_BACKUP_DIR is set (from the working directory), keeping 7 by default', () => {
    expect(parseConfig({}, '/srv/kura').backup).toEqual({ dir: null, keep: 7 });
    expect(parseConfig({ KURA_BACKUP_DIR: 'backups', KURA_BACKUP_KEEP: '30' }, '/srv/kura').backup).toEqual({ dir: '/srv/kura/backups', keep: 30 });
    expect(() => parseConfig({ KURA_BACKUP_KEEP: '0' })).toThrow('KURA_BACKUP_KEEP must be a whole number from 1 to 1000 (got "0")');
  });

  it('reads the default retention rules: each unset is no limit, and refuses what makes no sense', () => {
    expect(parseConfig({ KURA_RETENTION_KEEP_LAST: '5', KURA_RETENTION_MAX_GB: '1.5' }).retention).toEqual({ keepLast: 5, maxAgeDays: null, maxGb: 1.5 });
    expect(() => parseConfig({ KURA_RETENTION_MAX_AGE_DAYS: '-3', KURA_RETENTION_MAX_GB: 'lots' })).toThrow(
      expect.objectContaining({
        problems: [
          expect.stringMatching(/^KURA_RETENTION_MAX_AGE_DAYS must be a whole number from 0/),
          expect.stringMatching(/^KURA_RETENTION_MAX_GB must be a number/),
        ],
      }),
    );
  });

  it('reads how much archive verification does, and refuses what makes no sense', () => {
    expect(parseConfig({ KURA_VERIFY_EVERY_DAYS: '7', KURA_VERIFY_GB_PER_HOUR: '2.5' }).verify).toEqual({ everyDays: 7, bytesPerHour: 2.5e9 });
    expect(parseConfig({ KURA_VERIFY_GB_PER_HOUR: '0' }).verify.bytesPerHour).toBe(0);
    expect(() => parseConfig({ KURA_VERIFY_EVERY_DAYS: '0', KURA_VERIFY_GB_PER_HOUR: 'lots' })).toThrow(
      expect.objectContaining({
        problems: [
          expect.stringMatching(/^KURA_VERIFY_EVERY_DAYS must be a whole number from 1/),
          expect.stringMatching(/^KURA_VERIFY_GB_PER_HOUR must be a number/),
        ],
      }),
    );
  });

  it('reads the search slice: builtin by default, off, or Meilisearch with its URL and admin key', () => {
    expect(parseConfig({ KURA_SEARCH: 'off' }).search).toEqual({ kind: 'off' });
    expect(parseConfig({ KURA_SEARCH: 'meilisearch', MEILISEARCH_URL: 'http://127.0.0.1:7700/', MEILISEARCH_ADMIN_KEY: 'k' }).search).toEqual({
      kind: 'meilisearch',
      url: 'http://127.0.0.1:7700',
      publicUrl: 'http://127.0.0.1:7700',
      adminKey: 'k',
    });
    expect(
      parseConfig({
        KURA_SEARCH: 'meilisearch',
        MEILISEARCH_URL: 'http://m:7700',
        MEILISEARCH_PUBLIC_URL: 'https://search.example.org',
        MEILISEARCH_ADMIN_KEY: 'k',
      }).search,
    ).toMatchObject({ url: 'http://m:7700', publicUrl: 'https://search.example.org' });
    const problems = (env: Record<string, string>) => {
      try {
        parseConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(problems({ KURA_SEARCH: 'elastic' })).toEqual(['KURA_SEARCH must be one of builtin, meilisearch, off (got "elastic")']);
    expect(problems({ LOG_FORMAT: 'xml' })).toEqual(['LOG_FORMAT must be one of auto, pretty, json (got "xml")']);
    expect(problems({ KURA_YTDLP_CHANNEL: 'master' })).toEqual(['KURA_YTDLP_CHANNEL must be one of stable, nightly (got "master")']);
    expect(problems({ KURA_SEARCH: 'meilisearch', MEILISEARCH_URL: 'ftp://x' })).toEqual([
      'MEILISEARCH_URL must be an http(s) URL (got "ftp://x")',
      'MEILISEARCH_ADMIN_KEY is required when KURA_SEARCH=meilisearch',
    ]);
  });

  it('reads every variable', () => {
    const config = parseConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      KURA_PUBLIC_URL: 'https://archive.example.org/',
      KURA_DATA_DIR: '/var/lib/kura',
      DATABASE_URL: 'postgres://kura@db/kura',
      KURA_DB_POOL_MAX: '4',
      KURA_ROLE: 'worker',
      KURA_USD_PER_GB_MONTH: '0.006',
      KURA_CORS_ORIGINS: 'https://a.example, https://b.example',
      LOG_LEVEL: 'debug',
      KURA_READ_CACHE_ENTRIES: '0',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      publicUrl: 'https://archive.example.org',
      dataDir: '/var/lib/kura',
      databaseUrl: 'postgres://kura@db/kura',
      dbPoolMax: 4,
      role: 'worker',
      usdPerGbPerMonth: 0.006,
      corsOrigins: ['https://a.example', 'https://b.example'],
      logLevel: 'debug',
      readCacheEntries: 0,
    });
  });

  it('reports every problem at once, in plain words', () => {
    let error: unknown;
    try {
      parseConfig({
        PORT: 'eighty',
        KURA_PUBLIC_URL: 'ftp://x',
        DATABASE_URL: 'mysql://x',
        KURA_ROLE: 'boss',
        KURA_USD_PER_GB_MONTH: '-1',
        KURA_CORS_ORIGINS: 'not a url',
        LOG_LEVEL: 'loud',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(7);
    for (const name of ['PORT', 'KURA_PUBLIC_URL', 'DATABASE_URL', 'KURA_ROLE', 'KURA_USD_PER_GB_MONTH', 'KURA_CORS_ORIGINS', 'LOG_LEVEL']) {
      expect(problems.some((p) => p.startsWith(`${name} `))).toBe(true);
    }
    expect(problems.find((p) => p.startsWith('PORT'))).toBe('PORT must be a whole number from 0 to 65535 (got "eighty")');
  });

  it('reads KURA_PUBLIC_READ: public by default, CORS for the public URL’s origin alone when private, never *', () => {
    expect(parseConfig({})).toMatchObject({ publicRead: true, corsOrigins: ['*'] });
    const closed = { KURA_PUBLIC_READ: 'false', KURA_PUBLIC_URL: 'https://example.org/kura' };
    expect(parseConfig(closed)).toMatchObject({ publicRead: false, corsOrigins: ['https://example.org'] });
    expect(parseConfig({ ...closed, KURA_CORS_ORIGINS: 'https://a.example' }).corsOrigins).toEqual(['https://a.example']);
    expect(() => parseConfig({ ...closed, KURA_CORS_ORIGINS: '*' })).toThrow(/KURA_CORS_ORIGINS cannot be "\*" when KURA_PUBLIC_READ=false/);
    expect(() => parseConfig({ KURA_PUBLIC_READ: 'no' })).toThrow(/KURA_PUBLIC_READ must be one of true, false/);
  });

  it('reads .env, and the process environment wins over it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-env-'));
    await writeFile(path.join(dir, '.env'), 'PORT=7000\nKURA_ROLE=api\n# comment\nLOG_LEVEL=warn\n');
    const config = loadConfig({ LOG_LEVEL: 'error' }, dir);
    expect(config).toMatchObject({ port: 7000, role: 'api', logLevel: 'error', dataDir: path.join(dir, 'data') });
  });

  it('reads the file KURA_ENV_FILE names instead of .env, and refuses one that is not there', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-env-'));
    await writeFile(path.join(dir, '.env'), 'PORT=7000\n');
    await writeFile(path.join(dir, 'kura.env'), 'PORT=7100\nKURA_DATA_DIR=/var/lib/kura/data\n');
    expect(loadConfig({ KURA_ENV_FILE: path.join(dir, 'kura.env') }, dir)).toMatchObject({ port: 7100, dataDir: '/var/lib/kura/data' });
    expect(loadConfig({ KURA_ENV_FILE: 'kura.env', PORT: '7200' }, dir).port).toBe(7200);
    expect(() => loadConfig({ KURA_ENV_FILE: path.join(dir, 'gone.env') }, dir)).toThrow(/KURA_ENV_FILE names .*gone\.env, which does not exist/);
  });

  it('reads the accounts slice: each provider on when its pair is set, admins, sources, channels, limits', () => {
    const config = parseConfig({
      DISCORD_CLIENT_ID: 'd-id',
      DISCORD_CLIENT_SECRET: 'd-secret',
      GITHUB_CLIENT_ID: 'g-id',
      GITHUB_CLIENT_SECRET: 'g-secret',
      OIDC_ISSUER: 'https://id.example.org/application/o/kura/',
      OIDC_CLIENT_ID: 'kura',
      OIDC_CLIENT_SECRET: 's',
      OIDC_NAME: 'Authentik',
      KURA_ADMINS: 'discord/1234, local/root',
      KURA_SOURCES: 'hls',
      KURA_ALLOWED_CHANNELS: 'UCabc,UCdef',
      KURA_SUBMIT_RATE_LIMIT: '5',
      KURA_LOOKUP_RATE_LIMIT: '7',
      KURA_LOGIN_RATE_LIMIT: '3',
    });
    expect(config.accounts).toEqual({
      oauth: { discord: { clientId: 'd-id', clientSecret: 'd-secret' }, github: { clientId: 'g-id', clientSecret: 'g-secret' } },
      oidc: { issuer: 'https://id.example.org/application/o/kura/', clientId: 'kura', clientSecret: 's', name: 'Authentik' },
      admins: ['discord/1234', 'local/root'],
      sources: ['hls'],
      allowedChannels: ['UCabc', 'UCdef'],
      submitLimit: { limit: 5, windowSeconds: 3600 },
      lookupLimit: { limit: 7, windowSeconds: 60 },
      loginLimit: { limit: 3, windowSeconds: 900 },
    });
  });

  it('names every problem of the accounts slice at once', () => {
    let problems: readonly string[] = [];
    try {
      parseConfig({
        TWITCH_CLIENT_ID: 'only-the-id',
        OIDC_ISSUER: 'http://id.example.org',
        OIDC_CLIENT_ID: 'kura',
        OIDC_CLIENT_SECRET: 's',
        KURA_ADMINS: 'root',
        KURA_SOURCES: 'youtube,kick',
        KURA_SUBMIT_RATE_LIMIT: '0',
      });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      'TWITCH_CLIENT_ID and TWITCH_CLIENT_SECRET are set together (or neither)',
      'KURA_ADMINS must list provider/userId entries like discord/1234 (got "root")',
      'KURA_SOURCES must list some of youtube, hls, twitch, site (got "kick")',
      'OIDC_ISSUER must be an https URL (http only on localhost) (got "http://id.example.org")',
      'KURA_SUBMIT_RATE_LIMIT must be a whole number from 1 to 1000000 (got "0")',
    ]);
  });
});
