import { Readable } from 'node:stream';
import FeedParser from 'feedparser';

export interface ParsedFeed {
  meta: FeedParser.Meta;
  items: FeedParser.Item[];
}

/** Reads a feed as feed readers do, with the `feedparser` package (strict: a malformed document is an error). */
export function parseFeed(xml: string, feedUrl: string): Promise<ParsedFeed> {
  return new Promise((resolve, reject) => {
    const parser = new FeedParser({ feedurl: feedUrl, normalize: true, addmeta: false });
    const items: FeedParser.Item[] = [];
    parser.on('error', reject);
    parser.on('readable', () => {
      let item: FeedParser.Item | null;
      while ((item = parser.read() as FeedParser.Item | null) !== null) items.push(item);
    });
    parser.on('end', () => resolve({ meta: parser.meta as FeedParser.Meta, items }));
    Readable.from([xml]).pipe(parser);
  });
}
