// Decisions: docs/decisions/0061-atom-feeds.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { listHistory } from '../../core/records/list-history.js';
import { listQueue } from '../../core/records/list-queue.js';
import type { Livestream } from '../../core/records/livestream.js';
import type { CachedResponse, ReadCache } from '../read-cache.js';
import { readCacheKey } from '../read-cache-key.js';
import { problemResponses } from '../responses.schema.js';
import { atomXml, type AtomEntry } from './atom.js';
import { entityTag, FeedVersions, isNotModified } from './conditional.js';
import { archiveEntry, channelPageUrl, queueEntry } from './feed-entry.presenter.js';
import { FeedQuerySchema, FeedResponses } from './feeds.schema.js';
import { FEED_TOKEN_PARAMETER } from '../auth/read-access.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import type { ChannelRepo } from '../../core/channels/ports.js';

/** Entries in one feed: readers poll far more often than 50 streams are archived. */
export const FEED_ENTRIES = 50;
/** Feeds whose Last-Modified date is remembered (one per channel asked for, and the two whole feeds). */
const REMEMBERED_FEEDS = 10_000;
const ATOM_TYPE = 'application/atom+xml; charset=utf-8';

interface FeedKind {
  name: 'archives' | 'queue';
  title: string;
  list(deps: FeedRouteDeps, channelId: string | null): Promise<Livestream[]>;
  entry(livestream: Livestream, publicUrl: string): AtomEntry;
}

const ARCHIVES: FeedKind = {
  name: 'archives',
  title: 'archives',
  list: async (deps, channelId) => (await listHistory(deps, { page: 0, limit: FEED_ENTRIES, sort: 'desc', unfinished: false, channelId })).records,
  entry: archiveEntry,
};
const QUEUE: FeedKind = {
  name: 'queue',
  title: 'upcoming and live streams',
  list: async (deps, channelId) => (await listQueue(deps, channelId)).slice(0, FEED_ENTRIES),
  entry: queueEntry,
};

/** What the feeds use. */
export interface FeedRouteDeps {
  livestreams: LivestreamRepo;
  channels: ChannelRepo;
  cache: ReadCache;
  publicUrl: string;
  /** False: a private instance, whose enclosure links carry the feed token the feed was read with. */
  publicRead: boolean;
}

/**
 * `GET /feeds/archives.atom` (the newest finished archives) and `GET /feeds/queue.atom` (upcoming
 * and live streams, soonest first), each of one channel with `channelId`; served from the read
 * cache, answered 304 to a reader whose copy is current.
 */
export function feedRoutes(deps: FeedRouteDeps): FastifyPluginAsyncTypebox {
  const versions = new FeedVersions(REMEMBERED_FEEDS);
  return async (app) => {
    for (const kind of [ARCHIVES, QUEUE]) {
      app.get(
        `/feeds/${kind.name}.atom`,
        {
          config: { access: 'feed' },
          schema: {
            operationId: `${kind.name}Feed`,
            summary: `The ${kind.title} as an Atom feed; of one channel with channelId`,
            querystring: FeedQuerySchema,
            response: { ...FeedResponses, ...problemResponses },
          },
        },
        async (request, reply) => {
          const key = readCacheKey(request);
          // the key holds the feed token (a declared parameter): each token's feed links with its own
          const linkToken = deps.publicRead ? undefined : request.query.feed_token;
          const cached = await deps.cache.through(key, ['records'], () =>
            computeFeed(deps, kind, { channelId: request.query.channelId ?? null, linkToken }, versions, key),
          );
          return sendFeed(request, reply, cached);
        },
      );
    }
  };
}

/** What a feed is of: all channels or one, and the feed token its enclosure links carry (a private instance). */
interface FeedSubject {
  channelId: string | null;
  linkToken: string | undefined;
}

async function computeFeed(deps: FeedRouteDeps, kind: FeedKind, of: FeedSubject, versions: FeedVersions, key: string): Promise<CachedResponse> {
  const { publicUrl } = deps;
  const { channelId, linkToken } = of;
  const livestreams = await kind.list(deps, channelId);
  const query = channelId === null ? '' : `?channelId=${encodeURIComponent(channelId)}`;
  const self = `${publicUrl}/feeds/${kind.name}.atom${query}`;
  const channel = channelId === null ? null : await deps.channels.find(channelId);
  const subject = channelId === null ? 'Kura' : `${channel?.channelName || channelId} on Kura`;
  const body = atomXml({
    id: self,
    title: `${subject}: ${kind.title}`,
    subtitle: `The ${kind.title} of ${subject}`,
    self,
    alternate: channelId === null ? `${publicUrl}/${kind.name === 'queue' ? 'queue' : 'history'}` : channelPageUrl(publicUrl, channelId),
    entries: livestreams.map((l) => withFeedToken(kind.entry(l, publicUrl), publicUrl, linkToken)),
  });
  const etag = entityTag(body);
  const headers = { etag, 'last-modified': versions.since(key, etag).toUTCString(), 'cache-control': 'public, no-cache' };
  return { body, headers };
}

/** An entry whose enclosure and thumbnail (downloads of this instance) a reader fetches with the feed's own token. */
function withFeedToken(entry: AtomEntry, publicUrl: string, token: string | undefined): AtomEntry {
  if (token === undefined) return entry;
  const ours = `${publicUrl}/api/download/`;
  const signed = (url: string) => (url.startsWith(ours) ? `${url}?${FEED_TOKEN_PARAMETER}=${encodeURIComponent(token)}` : url);
  return {
    ...entry,
    enclosure: entry.enclosure && { ...entry.enclosure, url: signed(entry.enclosure.url) },
    thumbnail: entry.thumbnail && signed(entry.thumbnail),
  };
}

function sendFeed(request: FastifyRequest, reply: FastifyReply, cached: CachedResponse): FastifyReply {
  reply.headers(cached.headers);
  const { etag, 'last-modified': lastModified } = cached.headers as { etag: string; 'last-modified': string };
  if (isNotModified(request.headers, etag, new Date(lastModified))) return reply.code(304).send();
  return reply.type(ATOM_TYPE).send(cached.body);
}
