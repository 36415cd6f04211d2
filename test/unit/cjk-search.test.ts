import { describe, expect, it } from 'vitest';
import { matchWords } from '../../src/adapters/search/builtin-search.js';
import { partsOf } from '../../src/adapters/search/cjk-words.js';
import type { IndexedDocument } from '../../src/adapters/search/indexed-document.js';
import { MemoryIndex } from '../../src/adapters/search/memory-index.js';

// CJK text in the built-in engine (decision 0074): words as PostgreSQL made them (a run of letters
// between spaces and punctuation), segmented into words and grams by the index.
function documentOf(id: string, start: number, titleWords: string[], channelWords: string[] = ['channel']): IndexedDocument {
  return {
    id,
    start,
    length: null,
    fileSizeBytes: null,
    status: 'finished',
    finished: true,
    platform: 'youtube',
    channelId: 'UC1',
    titleWords,
    channelWords,
    momentWords: [],
  };
}

const index = MemoryIndex.of([
  documentOf('whole', 5, ['まったり配信ライブ歌枠コラボ雑談']),
  documentOf('alive', 4, ['アライブ']),
  documentOf('channel', 3, ['雑談'], ['ライブ']),
  documentOf('mixed', 2, ['vtuber歌枠', 'apex']),
  documentOf('half-width', 1, ['ｶﾗｵｹ']),
  documentOf('korean', 0, ['노래방송입니다']),
  documentOf('chinese', 6, ['今天一起玩游戏']),
]);
const search = (q: string, ids: string[] = []) =>
  index.search({ ...matchWords(index, q.split(' ')).query, ids, filter: null, sort: [], offset: 0, limit: 20 }).ids;

describe('CJK words in the built-in index', () => {
  it('splits a word with CJK letters into the segmenter words and its grams', () => {
    expect(partsOf('まったり配信ライブ').words).toEqual(['まったり', '配信', 'ライブ']);
    expect(partsOf('vtuber歌枠')).toEqual({ words: ['vtuber'], grams: ['歌枠', '枠'] });
    expect(partsOf('今天一起玩游戏').words).toEqual(['今天', '一起', '游戏']);
    expect(partsOf('karaoke')).toEqual({ words: ['karaoke'], grams: [] });
    expect(partsOf('ｶﾗｵｹ').words).toEqual(['カラオケ']);
  });

  it('finds a word inside a run, and any part of a run, but not letters apart', () => {
    expect(search('まったり')).toEqual(['whole']);
    expect(search('配信')).toEqual(['whole']);
    expect(search('歌枠')).toEqual(['whole', 'mixed']);
    expect(search('ったり配')).toEqual(['whole']);
    expect(search('信ラ')).toEqual(['whole']);
    expect(search('歌談')).toEqual([]);
    expect(search('カラオケ')).toEqual(['half-width']);
    expect(search('방송')).toEqual(['korean']);
    expect(search('游戏')).toEqual(['chinese']);
  });

  it('finds one letter wherever it is in a run, last letters too', () => {
    expect(search('枠')).toEqual(['whole', 'mixed']);
    expect(search('談')).toEqual(['whole', 'channel']);
    expect(search('戏')).toEqual(['chinese']);
  });

  it('ranks whole words before parts of words, the title before the channel name', () => {
    // ライブ: a word of "whole", in the channel name of "channel", a part of "アライブ"
    expect(search('ライブ')).toEqual(['whole', 'channel', 'alive']);
  });

  it('keeps Latin words apart from the CJK beside them: prefixes and typos as before', () => {
    expect(search('vtuber')).toEqual(['mixed']);
    expect(search('vtu')).toEqual(['mixed']);
    expect(search('vtubr')).toEqual(['mixed']);
    expect(search('apex 歌枠')).toEqual(['mixed']);
  });

  it('puts a record whose id the query is first, then the matches', () => {
    expect(search('korean', ['korean'])).toEqual(['korean']);
    expect(search('歌枠', ['mixed'])).toEqual(['mixed', 'whole']);
    expect(search('歌枠', ['no-such-id'])).toEqual(['whole', 'mixed']);
    const page = index.search({ ...matchWords(index, ['歌枠']).query, ids: ['chinese'], filter: null, sort: [], offset: 1, limit: 1 });
    expect({ ids: page.ids, total: page.total }).toEqual({ ids: ['whole'], total: 3 });
  });

  it('forgets the grams of a removed document', () => {
    const changing = MemoryIndex.of([documentOf('a', 1, ['歌枠']), documentOf('b', 2, ['雑談'])]);
    const find = (q: string) => changing.search({ ...matchWords(changing, [q]).query, filter: null, sort: [], offset: 0, limit: 20 }).ids;
    expect(find('枠')).toEqual(['a']);
    changing.remove('a');
    expect(changing.gramsBeginning('歌')).toEqual([]);
    expect(find('枠')).toEqual([]);
    expect(find('雑')).toEqual(['b']);
  });
});
