// Decisions: docs/decisions/0005-openapi-and-changelog.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { bytesResponse } from '../responses.schema.js';
import { changelogRss, type ChangelogRelease } from './changelog.js';

/** What the meta routes answer from: the package, its public URL and its changelog. */
export interface MetaRouteDeps {
  name: string;
  version: string;
  commit: string;
  publicUrl: string;
  changelog: ChangelogRelease[];
}

const OverviewSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  commit: Type.String(),
  links: Type.Record(Type.String(), Type.String()),
});

const ChangelogSchema = Type.Array(
  Type.Object({
    version: Type.String(),
    date: Type.String({ description: 'YYYY-MM-DD' }),
    changes: Type.Array(Type.Object({ kind: Type.String(), text: Type.String() })),
  }),
);

const OpenApiDocumentSchema = Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3.1' });

/** `/api`, `/api/openapi.json`, `/api/changelog` and `/api/changelog.rss`. */
export function metaRoutes(deps: MetaRouteDeps): FastifyPluginAsyncTypebox {
  const api = `${deps.publicUrl}/api`;
  const overview = {
    name: deps.name,
    version: deps.version,
    commit: deps.commit,
    links: {
      history: `${api}/history`,
      queue: `${api}/queue`,
      stats: `${api}/stats`,
      video: `${api}/video/{id}`,
      logz: `${api}/logz`,
      download: `${api}/download/{id}/{type}`,
      openapi: `${api}/openapi.json`,
      changelog: `${api}/changelog`,
      changelogRss: `${api}/changelog.rss`,
      health: `${deps.publicUrl}/healthz`,
      ready: `${deps.publicUrl}/readyz`,
      metrics: `${deps.publicUrl}/metrics`,
    },
  };
  const rss = changelogRss(deps.changelog, deps.publicUrl);

  return async (app) => {
    app.get('/', { schema: { operationId: 'getApiOverview', summary: 'API overview', response: { 200: OverviewSchema } } }, async () => overview);
    app.get(
      '/openapi.json',
      { schema: { operationId: 'getOpenApiDocument', summary: 'This API as OpenAPI 3.1', response: { 200: OpenApiDocumentSchema } } },
      async () => app.swagger(),
    );
    app.get(
      '/changelog',
      { schema: { operationId: 'getChangelog', summary: 'API changelog', response: { 200: ChangelogSchema } } },
      async () => deps.changelog,
    );
    app.get(
      '/changelog.rss',
      { schema: { operationId: 'getChangelogRss', summary: 'API changelog as RSS 2.0', response: { 200: bytesResponse('RSS 2.0', ['application/rss+xml']) } } },
      async (_request, reply) => reply.type('application/rss+xml; charset=utf-8').send(rss),
    );
  };
}
