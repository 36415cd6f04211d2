import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForChanges, type ClosableChangeFeed } from '../../src/adapters/db/change-listener.js';
import { followIndex, type IndexFollower } from '../../src/adapters/search/index-follower.js';
import { plainWords, QUERY_WORDS_SQL } from '../../src/adapters/search/query-words.js';
import { trigrams } from '../../src/adapters/search/trigrams.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The built-in engine's in-memory index against a real PostgreSQL: it follows search_documents
// through the change log of migration 0008 and the change notifications.
let db: TestDatabase;
let feed: ClosableChangeFeed;
let follower: IndexFollower;

beforeAll(async () => {
  db = await createTestDatabase();
  feed = await listenForChanges(db.url, () => undefined);
  follower = followIndex(db.pool, feed);
});
afterAll(async () => {
  await follower?.close();
  await feed?.close();
  await db?.drop();
});

const insert = (client: pg.Pool | pg.PoolClient, id: string, title: string) =>
  client.query(
    `insert into search_documents (id, document, title, channel_name, channel_id, status, finished, platform, scheduled_start_at)
     values ($1, jsonb_build_object('id', $1::text), $2, 'Channel', 'UC1', 'finished', true, 'hls', now())`,
    [id, title],
  );
const notified = () => new Promise<void>((resolve) => feed.onChange(() => resolve()));
const found = async (word: string) => (await follower.current()).search({ terms: [[word]], filter: null, sort: [], offset: 0, limit: 10 }).ids;

describe('the in-memory search index', () => {
  it('applies a change committed after a later one, by a transaction that began first', async () => {
    expect(await found('early')).toEqual([]);
    const slow = await db.pool.connect();
    try {
      await slow.query('begin');
      await insert(slow, 'late-doc', 'Late arrival');
      let change = notified();
      await insert(db.pool, 'early-doc', 'Early bird');
      await change;
      expect(await found('early')).toEqual(['early-doc']);
      expect(await found('late')).toEqual([]);
      change = notified();
      await slow.query('commit');
      await change;
      expect(await found('late')).toEqual(['late-doc']);
    } finally {
      slow.release();
    }
  });

  it('follows updates and deletes, and loads everything again after a truncate', async () => {
    let change = notified();
    await db.pool.query(`update search_documents set title = 'Early riser' where id = 'early-doc'`);
    await change;
    expect(await found('bird')).toEqual([]);
    expect(await found('riser')).toEqual(['early-doc']);
    change = notified();
    await db.pool.query(`delete from search_documents where id = 'late-doc'`);
    await change;
    expect(await found('late')).toEqual([]);
    change = notified();
    await db.pool.query('truncate search_documents');
    await change;
    expect((await follower.current()).size).toBe(0);
  });

  it('reads the change log at every search while the change feed is down', async () => {
    const alone = await listenForChanges(db.url, () => undefined);
    const unfed = followIndex(db.pool, alone);
    try {
      await unfed.current();
      await alone.close(); // no notification can reach it now
      await insert(db.pool, 'unheard-doc', 'Unheard news');
      const index = await unfed.current();
      expect(index.search({ terms: [['unheard']], filter: null, sort: [], offset: 0, limit: 10 }).ids).toEqual(['unheard-doc']);
    } finally {
      await unfed.close();
    }
  });
});

describe('a background refresh that fails', () => {
  it('is told once while it keeps failing, and again once it failed anew after a success', async () => {
    const warnings: string[] = [];
    const watched = followIndex(db.pool, feed, { onError: (error) => warnings.push(error.message) });
    const changeSignalled = async () => {
      const change = notified(); // the follower listened first: its refresh is under way when this resolves
      await db.pool.query(`select pg_notify('kura_livestreams_changed', 'search')`); // as the documents' triggers notify
      await change;
    };
    try {
      await watched.current();
      await db.pool.query('alter table search_documents rename to search_documents_away');
      for (let round = 0; round < 3; round++) {
        await changeSignalled();
        await expect(watched.current()).rejects.toThrow(/search_documents/);
      }
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/search_documents/);
      await db.pool.query('alter table search_documents_away rename to search_documents');
      await changeSignalled();
      await watched.current();
      await db.pool.query('alter table search_documents rename to search_documents_away');
      await changeSignalled();
      await expect(watched.current()).rejects.toThrow(/search_documents/);
      expect(warnings).toHaveLength(2);
    } finally {
      await db.pool.query('alter table if exists search_documents_away rename to search_documents');
      await watched.close();
    }
  });
});

describe('loading every document', () => {
  it('reads them in batches without missing or repeating one, many sharing a start time', async () => {
    await db.pool.query(
      `insert into search_documents (id, document, title, channel_name, channel_id, status, finished, platform, scheduled_start_at)
       select 'bulk-' || n, jsonb_build_object('id', 'bulk-' || n), case when n % 3 = 0 then 'Bulk karaoke' else 'Bulk' end,
         'Channel', 'UC1', 'finished', true, 'hls', timestamptz '2026-01-01' + (n % 4) * interval '1 hour'
       from generate_series(1, 12001) n`,
    );
    const fresh = followIndex(db.pool, null);
    try {
      const index = await fresh.current();
      const all = await db.pool.query<{ n: number }>('select count(*)::integer as n from search_documents');
      expect(index.size).toBe(all.rows[0]?.n);
      expect(index.vocabulary.documents('bulk')).toBe(12001);
      expect(index.vocabulary.documents('karaoke')).toBe(4000);
      // newest first: the three-o'clock documents, by id descending
      const threeOClock = Array.from({ length: 12001 }, (_, i) => i + 1)
        .filter((n) => n % 4 === 3)
        .map((n) => `bulk-${n}`);
      const page = index.search({ terms: [['bulk']], filter: null, sort: [], offset: 0, limit: 3 }).ids;
      expect(page).toEqual(threeOClock.sort().reverse().slice(0, 3));
    } finally {
      await fresh.close();
    }
  });
});

describe('query words', () => {
  it('are split as PostgreSQL splits them where they are plain words, and left to it otherwise', async () => {
    const next = (
      (state: number) => () =>
        (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    )(11);
    const word = () => {
      const alphabet = next() < 0.7 ? 'abcXYZeE' : '01289';
      return Array.from({ length: 1 + Math.floor(next() * 8) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    };
    const queries = ['Karaoke NIGHT karaoke', '007 0 karaoke 2024', '  spaced   out  ', '', '9', 'x'.repeat(1000)];
    for (let i = 0; i < 300; i++) queries.push(Array.from({ length: 1 + Math.floor(next() * 4) }, () => word()).join(' '.repeat(1 + Math.floor(next() * 2))));
    let plain = 0;
    for (const q of queries) {
      const words = plainWords(q);
      if (words === null) continue;
      plain += 1;
      const { rows } = await db.pool.query<{ words: string[] }>(QUERY_WORDS_SQL, [q]);
      expect(words, JSON.stringify(q)).toEqual(rows[0]?.words);
    }
    expect(plain).toBe(queries.length);
    for (const q of ['café', 'semi-final', '1e10', 'abc123']) expect(plainWords(q)).toBeNull();
  });
});

describe('typo candidates', () => {
  it('are cut into trigrams as pg_trgm cuts them', async () => {
    for (const word of ['karaoke', 'a', 'ab', 'semi-final', 'pokemon123', 'x.y.z', 'utawaku']) {
      const { rows } = await db.pool.query<{ grams: string[] }>('select show_trgm($1) as grams', [word]);
      expect([...trigrams(word)].sort(), word).toEqual([...(rows[0]?.grams ?? [])].sort());
    }
  });
});
