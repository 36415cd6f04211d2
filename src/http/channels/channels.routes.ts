import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getChannel } from '../../core/channels/get-channel.js';
import { listChannels } from '../../core/channels/list-channels.js';
import { paginatedResponse, paginationHeaders, type PaginationOptions } from '../pagination.js';
import { problemResponse, problemResponses } from '../responses.schema.js';
import { presentChannel } from './channel.presenter.js';
import { ChannelListSchema, ChannelParamsSchema, ChannelSchema, ChannelsQuerySchema, toChannelsRequest } from './channels.schema.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import type { ChannelRepo } from '../../core/channels/ports.js';
import { sendCached, type ReadCache } from '../read-cache.js';

/** What the channel routes use. */
export interface ChannelRouteDeps {
  livestreams: LivestreamRepo;
  channels: ChannelRepo;
  cache: ReadCache;
  pagination: PaginationOptions;
}

/** `GET /api/channels` (paginated like the history) and `GET /api/channels/{channelId}`, from maintained aggregates. */
export function channelRoutes(deps: ChannelRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/channels',
      {
        schema: {
          operationId: 'listChannels',
          summary: 'Channels with archives, queued streams or a follow: latest archive first, followed channels without records last; paginated',
          querystring: ChannelsQuerySchema,
          response: { 200: paginatedResponse(ChannelListSchema, 'A page of channels', deps.pagination), ...problemResponses },
        },
      },
      async (request, reply) =>
        sendCached(request, reply, { cache: deps.cache, dependsOn: ['records', 'follows'], atTheDoor: true }, async () => {
          const page = await listChannels(deps, toChannelsRequest(request.query));
          return {
            body: reply.serialize(page.channels.map(presentChannel)) as string,
            headers: paginationHeaders(page, deps.pagination),
          };
        }),
    );

    app.get(
      '/channels/:channelId',
      {
        schema: {
          operationId: 'getChannel',
          summary: "One channel's counts, sizes and latest archive",
          params: ChannelParamsSchema,
          response: { 200: ChannelSchema, 404: problemResponse('`channel_not_found`'), ...problemResponses },
        },
      },
      async (request, reply) =>
        sendCached(request, reply, { cache: deps.cache, dependsOn: ['records', 'follows'], atTheDoor: true }, async () => ({
          body: reply.serialize(presentChannel(await getChannel(deps, request.params.channelId))) as string,
          headers: {},
        })),
    );
  };
}
