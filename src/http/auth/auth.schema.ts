import Type, { type Static } from 'typebox';
import { LOCAL_NAME_PATTERN } from '../../core/account.js';

export const ProviderParamsSchema = Type.Object({
  provider: Type.String({ pattern: '^[a-z0-9_-]{1,32}$', description: 'A provider id from GET /auth/providers' }),
});

export const LoginQuerySchema = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2048, description: 'A path of this instance to return to after the login' })),
});

export const ProvidersSchema = Type.Object(
  {
    providers: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), loginUrl: Type.String({ description: 'Where the login button goes' }) }),
    ),
    local: Type.Boolean({ description: 'Local accounts log in with POST /auth/local' }),
    setupRequired: Type.Boolean({ description: 'No admin exists yet: the first one is made with POST /auth/setup and the setup token in the server log' }),
  },
  { $id: 'LoginProviders' },
);

export const LocalLoginSchema = Type.Object({
  username: Type.String({ pattern: LOCAL_NAME_PATTERN, description: '1–64 letters, digits, ".", "_" or "-"' }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: '1–1024 characters' }),
  next: Type.Optional(Type.String({ maxLength: 2048, description: 'For HTML forms: a path of this instance to go to (303) after the login' })),
});

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

export const SetupSchema = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 256, description: 'The setup token from the server log line "No admin account yet"' }),
  username: Type.String({ pattern: LOCAL_NAME_PATTERN, description: 'The admin account to create: 1–64 letters, digits, ".", "_" or "-"' }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: '8–1024 characters' }),
});

/** A user's public identity, as `GET /api/user/{provider}/{id}` answers it. */
export type PresentedUser = Static<typeof UserSchema>;
/** The caller, as `GET /api/user` and the logins answer it. */
export type PresentedCaller = Static<typeof CallerSchema>;
