import Type from 'typebox';
import { PROBLEM_MEDIA_TYPE, ProblemSchema } from '../responses.schema.js';

const Strings = Type.Array(Type.String());

/** A search as Meilisearch takes it (the part the built-in engine supports). */
export const SearchBodySchema = Type.Object(
  {
    q: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: 'words; the last one matches as a prefix; typos tolerated' })),
    limit: Type.Optional(Type.Integer({ minimum: 0, description: 'default 20; offset + limit reach at most 1000 hits' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'default 0' })),
    page: Type.Optional(Type.Integer({ minimum: 0, description: '1-based; with hitsPerPage, answers totalHits and totalPages' })),
    hitsPerPage: Type.Optional(Type.Integer({ minimum: 0, description: 'default 20' })),
    filter: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.Union([Type.String(), Strings])), Type.Null()], {
        description: 'on finished, status, channelId, platform with =, !=, AND, OR, parentheses; or the array form',
      }),
    ),
    sort: Type.Optional(Type.Union([Strings, Type.Null()], { description: 'scheduledStart, length or fileSizeBytes, each :asc or :desc' })),
    attributesToRetrieve: Type.Optional(Type.Union([Strings, Type.Null()])),
    attributesToHighlight: Type.Optional(
      Type.Union([Strings, Type.Null()], { description: 'title, channelName, moments (each moment’s text; also as moments.text) or *' }),
    ),
    highlightPreTag: Type.Optional(Type.String({ maxLength: 128, description: 'default <em>; at most 128 characters' })),
    highlightPostTag: Type.Optional(Type.String({ maxLength: 128, description: 'default </em>; at most 128 characters' })),
  },
  { $id: 'SearchEngineQuery', additionalProperties: true },
);

export const SearchQueryStringSchema = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 1000 })),
    limit: Type.Optional(Type.String()),
    offset: Type.Optional(Type.String()),
    page: Type.Optional(Type.String()),
    hitsPerPage: Type.Optional(Type.String()),
    filter: Type.Optional(Type.String()),
    sort: Type.Optional(Type.String({ description: 'comma-separated' })),
    attributesToRetrieve: Type.Optional(Type.String({ description: 'comma-separated' })),
    attributesToHighlight: Type.Optional(Type.String({ description: 'comma-separated' })),
    highlightPreTag: Type.Optional(Type.String({ maxLength: 128, description: 'default <em>; at most 128 characters' })),
    highlightPostTag: Type.Optional(Type.String({ maxLength: 128, description: 'default </em>; at most 128 characters' })),
  },
  { additionalProperties: true },
);

export const SearchResultSchema = Type.Object(
  {
    hits: Type.Array(Type.Object({}, { additionalProperties: true, description: 'livestream records (LivestreamRecord), with _formatted when highlighting' })),
    query: Type.String(),
    processingTimeMs: Type.Integer(),
    limit: Type.Optional(Type.Integer()),
    offset: Type.Optional(Type.Integer()),
    estimatedTotalHits: Type.Optional(Type.Integer({ description: 'up to 1000' })),
    page: Type.Optional(Type.Integer()),
    hitsPerPage: Type.Optional(Type.Integer()),
    totalPages: Type.Optional(Type.Integer()),
    totalHits: Type.Optional(Type.Integer({ description: 'up to 1000' })),
  },
  { $id: 'SearchEngineResult', additionalProperties: true },
);

export const MultiSearchBodySchema = Type.Object(
  { queries: Type.Array(Type.Object({ indexUid: Type.String() }, { additionalProperties: true }), { maxItems: 20 }) },
  { additionalProperties: true },
);

/** Meilisearch's error format, which this endpoint answers in (not problem JSON). */
export const MeiliErrorSchema = Type.Object(
  { message: Type.String(), code: Type.String(), type: Type.String(), link: Type.String() },
  { $id: 'MeilisearchError', description: "Meilisearch's error format" },
);

export const SearchAccessSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    url: Type.Optional(Type.String({ description: 'the Meilisearch-compatible engine to query' })),
    apiKey: Type.Optional(
      Type.String({
        description:
          "a key that can only search the index; on a private instance with the built-in engine, the caller's own, working while the session or API token that read it does, for an hour at most (then 403 invalid_api_key: ask again); with Meilisearch, a tenant token expiring in an hour",
      }),
    ),
    index: Type.Optional(Type.String({ description: 'always kura' })),
  },
  { $id: 'SearchAccess' },
);

/** Its errors: Meilisearch's format; a request Node's HTTP parser refuses (no route known yet) is problem JSON. */
export const MeiliErrorResponses = {
  '4xx': {
    description: "A refusal in Meilisearch's format; one of Node's HTTP parser (a header too large, a NUL in a header) is problem JSON",
    content: { 'application/json': { schema: MeiliErrorSchema }, [PROBLEM_MEDIA_TYPE]: { schema: ProblemSchema } },
  },
  '5xx': { description: "A failure, in Meilisearch's format", content: { 'application/json': { schema: MeiliErrorSchema } } },
};

export const HealthSchema = Type.Object({ status: Type.Literal('available') });

export const VersionSchema = Type.Object({ pkgVersion: Type.String(), commitSha: Type.String(), commitDate: Type.String() });

export const IndexSchema = Type.Object({
  uid: Type.String(),
  primaryKey: Type.String(),
  createdAt: Type.Null({ description: 'not kept by the built-in engine' }),
  updatedAt: Type.Null({ description: 'not kept by the built-in engine' }),
  numberOfDocuments: Type.Integer(),
});

export const MultiSearchResultSchema = Type.Object({
  results: Type.Array(
    Type.Object({ indexUid: Type.String() }, { additionalProperties: true, description: 'the index searched, and its search result (SearchEngineResult)' }),
  ),
});
