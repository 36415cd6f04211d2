import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getChatActivity, getChatWindow, type ChatReadDeps } from '../../core/chat/read-chat.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { problemResponse, problemResponses } from '../responses.schema.js';
import { ChatActivitySchema, ChatPageSchema, ChatQuerySchema } from './chat.schema.js';

/** What the chat routes use: the records and their captured chats. */
export type ChatRouteDeps = ChatReadDeps;

/** `GET /api/video/{id}/chat` (a time window of the live chat) and `GET /api/video/{id}/chat/activity` (messages per minute). */
export function chatRoutes(deps: ChatRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/video/:id/chat',
      {
        schema: {
          operationId: 'getVideoChat',
          summary: 'The live chat between two offsets of the archive (seconds from its start), oldest first; grows while the stream is recorded',
          params: LivestreamIdParamsSchema,
          querystring: ChatQuerySchema,
          response: {
            200: ChatPageSchema,
            404: problemResponse('`livestream_not_found`; `chat_not_found`: no chat of the record is kept'),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { from = 0, to = Number.MAX_SAFE_INTEGER, limit = 500 } = request.query;
        const page = await getChatWindow(deps, request.params.id, { from, to, limit });
        return { ...page, archiveStart: page.archiveStart?.toISOString() ?? null };
      },
    );

    app.get(
      '/video/:id/chat/activity',
      {
        schema: {
          operationId: 'getVideoChatActivity',
          summary: 'How many live chat messages each minute of the archive holds',
          params: LivestreamIdParamsSchema,
          response: {
            200: ChatActivitySchema,
            404: problemResponse('`livestream_not_found`; `chat_not_found`: no chat of the record is kept'),
            ...problemResponses,
          },
        },
      },
      async (request) => getChatActivity(deps, request.params.id),
    );
  };
}
