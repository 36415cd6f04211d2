// Decisions: docs/decisions/0130-moments.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { chapterLines } from '../../core/moments/chapters.js';
import { MOMENT_RATE, MOMENTS_PER_RECORD } from '../../core/moments/moment.js';
import { addMoment, editMoment, listMoments, removeMoment, type MomentDeps } from '../../core/moments/moment-actions.js';
import { describeRate } from '../../core/rate-limit.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';

/** The refusals of a record's moments and of one moment. */
const NO_RECORD = { 404: problemResponse('`livestream_not_found`') };
const ADD_REFUSALS = { ...NO_RECORD, 409: problemResponse('`livestream_state_conflict`: upcoming or failed, nothing to mark; `moment_limit_reached`') };
const MOMENTS_TEXT = { description: 'One line a moment, by time', content: { 'text/plain': { schema: Type.String() } } };
const momentRefusals = (who: string) => ({ 403: problemResponse(`\`not_moment_author\`: ${who}`), 404: problemResponse('`moment_not_found`') });
import { MomentChangeSchema, MomentParamsSchema, MomentSchema, NewMomentSchema, presentMoment } from './moments.schema.js';

export interface MomentRouteDeps extends MomentDeps {
  guard: Pick<Guard, 'requireCaller'>;
}

/** A record's moments (read by anyone who may read it; added by a logged-in user; changed by their author or an admin). */
export function momentRoutes(deps: MomentRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/video/:id/moments',
      {
        schema: {
          operationId: 'listMoments',
          summary: 'The moments marked in a record, by time',
          params: LivestreamIdParamsSchema,
          response: { 200: Type.Array(MomentSchema), ...NO_RECORD, ...problemResponses },
        },
      },
      async (request) => (await listMoments(deps, request.params.id)).map(presentMoment),
    );
    app.get(
      '/video/:id/moments.txt',
      {
        schema: {
          operationId: 'exportMoments',
          summary: 'The moments as the chapter lines people paste under a video: `0:00 Opening`, one a line',
          params: LivestreamIdParamsSchema,
          response: { 200: MOMENTS_TEXT, ...NO_RECORD, ...problemResponses },
        },
      },
      async (request, reply) => reply.type('text/plain; charset=utf-8').send(chapterLines(await listMoments(deps, request.params.id))),
    );
    app.post(
      '/video/:id/moments',
      {
        onRequest: deps.guard.requireCaller,
        schema: {
          operationId: 'addMoment',
          summary: `Marks a moment in a record being recorded or archived (at most ${describeRate(MOMENT_RATE)} a user, ${MOMENTS_PER_RECORD} a record)`,
          params: LivestreamIdParamsSchema,
          body: NewMomentSchema,
          response: { 201: MomentSchema, ...ADD_REFUSALS, ...rateLimitedResponse, ...problemResponses },
        },
      },
      async (request, reply) => {
        const moment = await addMoment(deps, callerOf(request), { livestreamId: request.params.id, at: request.body.at, text: request.body.text });
        return reply.code(201).send(presentMoment(moment));
      },
    );
    app.patch(
      '/moments/:momentId',
      {
        onRequest: deps.guard.requireCaller,
        schema: {
          operationId: 'editMoment',
          summary: 'Changes a moment’s time or text (its author or an admin)',
          params: MomentParamsSchema,
          body: MomentChangeSchema,
          response: { 200: MomentSchema, ...rateLimitedResponse, ...momentRefusals('only its author or an admin edits a moment'), ...problemResponses },
        },
      },
      async (request) => presentMoment(await editMoment(deps, callerOf(request), { id: request.params.momentId, ...request.body })),
    );
    app.delete(
      '/moments/:momentId',
      {
        onRequest: deps.guard.requireCaller,
        schema: {
          operationId: 'removeMoment',
          summary: 'Removes a moment (its author or an admin; 204)',
          params: MomentParamsSchema,
          response: { 204: NoContentSchema, ...momentRefusals('only its author or an admin removes a moment'), ...problemResponses },
        },
      },
      async (request, reply) => {
        await removeMoment(deps, callerOf(request), request.params.momentId);
        return sendNoContent(reply);
      },
    );
  };
}
