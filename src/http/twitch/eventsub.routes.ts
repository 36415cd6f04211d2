// Decisions: docs/decisions/0138-twitch-eventsub-stream-online.md
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { FollowRepo } from '../../core/follows/ports.js';
import { wakeTwitchFollow } from '../../core/follows/wake-twitch-follow.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponse, problemResponses } from '../responses.schema.js';
import { checkSignedMessage, SeenMessages, type SignedMessage } from './eventsub-message.js';

/** What the EventSub callback works on, as the composition root wires it (decision 0138). */
export interface EventSubDeps {
  follows: Pick<FollowRepo, 'list' | 'update'>;
  /** The secret Kura gave Twitch with each subscription (TwitchApp.eventSub). */
  secret: string;
  now?: () => number;
}

const EventSubBodySchema = Type.Object(
  {
    challenge: Type.Optional(Type.String({ description: 'A verification’s challenge, answered back as it is' })),
    subscription: Type.Optional(Type.Object({ type: Type.Optional(Type.String()), status: Type.Optional(Type.String()) })),
    event: Type.Optional(Type.Object({ broadcaster_user_login: Type.Optional(Type.String()) })),
  },
  { $id: 'TwitchEventSubMessage', description: 'A message of Twitch’s EventSub, as Twitch sends it (the fields Kura reads)' },
);

const refused = (detail: string) => new AppError('forbidden', 'eventsub_signature_invalid', detail);

/**
 * `POST /api/twitch/eventsub`: Twitch's EventSub callback (decision 0138), open to anyone and
 * authenticated by its signature alone (no session, so no same-origin rule), checked against the
 * raw body before it is read. A verification is answered its challenge; a `stream.online` makes
 * the channel's follow due now; a message seen already is acknowledged without acting again.
 */
export function eventSubRoutes(deps: EventSubDeps): FastifyPluginAsyncTypebox {
  const now = deps.now ?? Date.now;
  const seen = new SeenMessages();
  const checked = new WeakMap<FastifyRequest, SignedMessage>();
  return async (app) => {
    // in this plugin's own context: the signature is of the bytes Twitch sent, so they are kept to check
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
      const message = checkSignedMessage(request.headers, raw as Buffer, deps.secret, now());
      if ('refused' in message) return done(refused(message.refused), undefined);
      checked.set(request, message);
      try {
        done(null, JSON.parse((raw as Buffer).toString('utf8')));
      } catch {
        done(new AppError('invalid', 'invalid_body', 'The body is not JSON.'), undefined);
      }
    });
    app.post(
      '/twitch/eventsub',
      {
        config: { access: 'open' },
        schema: {
          operationId: 'receiveTwitchEventSub',
          summary:
            'Twitch’s EventSub callback (with KURA_TWITCH_EVENTSUB): signed by Twitch (Twitch-Eventsub-Message-Id, -Timestamp, -Signature, -Type); a verification is answered its challenge (200), a stream.online makes the channel’s follow due now (204)',
          body: EventSubBodySchema,
          response: {
            200: { description: 'The challenge of a verification, as Twitch sent it', content: { 'text/plain': { schema: Type.String() } } },
            204: NoContentSchema,
            403: problemResponse('`eventsub_signature_invalid`: not signed with this instance’s secret, or more than 10 minutes old'),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const message = checked.get(request);
        if (message === undefined) throw refused('A Twitch EventSub message is JSON (Content-Type: application/json), signed by Twitch.');
        const { challenge, subscription, event } = request.body;
        if (message.type === 'webhook_callback_verification') {
          if (challenge === undefined) throw new AppError('invalid', 'invalid_body', 'A verification carries its challenge.');
          request.log.info({ subscription: subscription?.type }, 'Twitch EventSub subscription verified');
          return reply.code(200).type('text/plain; charset=utf-8').send(challenge);
        }
        if (seen.has(message.id, now())) return sendNoContent(reply); // Twitch sent it again: acted on already
        if (message.type === 'revocation') {
          request.log.warn(
            { status: subscription?.status },
            `Twitch revoked an EventSub subscription (${subscription?.status ?? 'no reason'}): it is asked for again within the hour`,
          );
        } else if (message.type === 'notification' && subscription?.type === 'stream.online' && event?.broadcaster_user_login !== undefined) {
          const login = event.broadcaster_user_login;
          const followId = await wakeTwitchFollow(deps, { login, now: new Date(now()) });
          request.log.info({ followId, login }, `Twitch says ${login} went live: ${followId === null ? 'no follow of it' : 'its follow is checked now'}`);
        }
        seen.add(message.id, now());
        return sendNoContent(reply);
      },
    );
  };
}
