// Decisions: docs/decisions/0098-the-original-client-works-whole.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { PLATFORMS } from '../../core/vocabulary.js';
import type { Quality, StreamSource } from '../../core/sources/ports.js';
import { validateStream, type Validation } from '../../core/sources/validate-stream.js';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';
import { LookupCache } from './lookup-cache.js';
import type { AccountDeps, AccountSettings } from '../auth/account-deps.js';

/** How long an answer about a URL is reused, and how many are kept. */
const LOOKUP_TTL_MS = 60_000;
const LOOKUP_ENTRIES = 1000;

const UrlQuerySchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'A YouTube livestream URL or an HLS playlist (.m3u8) URL' }),
});
const ValidationSchema = Type.Object(
  {
    valid: Type.Boolean(),
    channelId: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Optional(Type.String({ description: 'Why the URL cannot be submitted' })),
    platform: Type.Optional(Type.Enum(PLATFORMS)),
    title: Type.Optional(Type.String({ description: 'when the source tells (YouTube)' })),
    channelName: Type.Optional(Type.String()),
    thumbnail: Type.Optional(Type.String({ description: 'thumbnail URL at the source' })),
    scheduledStart: Type.Optional(Type.String({ format: 'date-time', description: 'when the source schedules the stream' })),
  },
  { $id: 'Validation' },
);
const QualitySchema = Type.Object(
  {
    code: Type.Union([Type.String(), Type.Integer()], {
      description:
        '`720p`-style height, or `best`: what `quality` takes at submission. With KURA_ORIGINAL_HEADERS=true a number, as the original web client sends it back: the height (720), 0 for the best',
    }),
    resolution: Type.String(),
    best: Type.Boolean({ description: 'Recorded when no quality is asked for' }),
  },
  { $id: 'Quality' },
);

/** What the lookup routes use: the sources as users may submit to them, and the lookup limit. */
export interface SourceRouteDeps extends Pick<AccountDeps, 'submissionSource' | 'rateLimiter'> {
  /** The sources themselves, for the qualities a stream offers. */
  source: StreamSource;
  settings: Pick<AccountSettings, 'lookupLimit'>;
  /** Quality codes as numbers, which the original web client sends back as they are (KURA_ORIGINAL_HEADERS; decision 0098). */
  originalClient?: boolean;
}

/** A quality code as the original web client sends it back (`+code`): `720p` as 720, `best` as 0, both of which submit takes. */
export function originalQualityCode(code: string): number {
  return code === 'best' ? 0 : Number.parseInt(code, 10);
}

/** `GET /api/validate` and `GET /api/qualities`: what Kura would record from a URL. */
export function sourceRoutes(deps: SourceRouteDeps): FastifyPluginAsyncTypebox {
  // each lookup may run yt-dlp or fetch a playlist: counted per client address, in PostgreSQL
  const limitLookups = async (request: FastifyRequest) => {
    const { limit, windowSeconds } = deps.settings.lookupLimit;
    const hit = await deps.rateLimiter.hit('lookup', request.ip, deps.settings.lookupLimit);
    if (!hit.allowed) {
      throw new AppError(
        'rate_limited',
        'too_many_requests',
        `At most ${limit} lookups per ${windowSeconds} s; try again in ${hit.retryAfterSeconds} s.`,
        hit.retryAfterSeconds,
      );
    }
  };
  const validations = new LookupCache<Validation>(LOOKUP_TTL_MS, LOOKUP_ENTRIES);
  const qualities = new LookupCache<Quality[]>(LOOKUP_TTL_MS, LOOKUP_ENTRIES);
  return async (app) => {
    app.get(
      '/validate',
      {
        preHandler: limitLookups,
        schema: {
          operationId: 'validateSource',
          summary: 'Whether a URL names a stream this instance takes (upcoming or live, within its rules), and why not',
          querystring: UrlQuerySchema,
          response: {
            200: ValidationSchema,
            400: problemResponse('`invalid_source`: Kura cannot archive this URL (the detail says why)'),
            ...rateLimitedResponse,
            ...problemResponses,
          },
        },
      },
      (request) => validations.get(request.query.url, () => validateStream({ source: deps.submissionSource }, request.query.url)),
    );
    app.get(
      '/qualities',
      {
        preHandler: limitLookups,
        schema: {
          operationId: 'listQualities',
          summary: 'The qualities a stream offers, best first (400 when the URL is not a stream)',
          querystring: UrlQuerySchema,
          response: {
            200: Type.Array(QualitySchema),
            400: problemResponse('`invalid_source`: Kura cannot archive this URL (the detail says why)'),
            ...rateLimitedResponse,
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const offered = await qualities.get(request.query.url, () => deps.source.qualities(request.query.url));
        return deps.originalClient ? offered.map((quality) => ({ ...quality, code: originalQualityCode(quality.code) })) : offered;
      },
    );
  };
}
