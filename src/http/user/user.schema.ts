// Decisions: docs/decisions/0004-route-schemas-define-the-api.md
import Type, { type Static } from 'typebox';

export const UserSchema = Type.Object(
  {
    id: Type.String({ description: 'The user id at its provider (a local account: its name)' }),
    name: Type.String(),
    avatar: Type.Union([Type.String(), Type.Null()]),
    provider: Type.String(),
  },
  { $id: 'User' },
);

export const CallerSchema = Type.Object(
  {
    id: Type.String({ description: 'The user id at its provider (a local account: its name)' }),
    name: Type.String(),
    avatar: Type.Union([Type.String(), Type.Null()]),
    provider: Type.String(),
    role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  },
  { $id: 'Caller' },
);

/** A user's public identity, as `GET /api/user/{provider}/{id}` answers it. */
export type PresentedUser = Static<typeof UserSchema>;
/** The caller, as `GET /api/user` and the logins answer it. */
export type PresentedCaller = Static<typeof CallerSchema>;
