import Type from 'typebox';
import { LOCAL_NAME_PATTERN } from '../../core/accounts/account.js';

export const ProviderParamsSchema = Type.Object({
  provider: Type.String({ pattern: '^[a-z0-9_-]{1,32}$', description: 'A provider id from GET /auth/providers' }),
});

export const LoginQuerySchema = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2048, description: 'A path of this instance to return to after the login' })),
});

export const ProvidersSchema = Type.Object(
  {
    providers: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), loginUrl: Type.String({ description: 'Where the login button goes' }) })),
    local: Type.Boolean({ description: 'Local accounts log in with POST /auth/local' }),
    setupRequired: Type.Boolean({ description: 'No admin exists yet: the first one is made with POST /auth/setup and the setup token in the server log' }),
    publicRead: Type.Boolean({ description: 'Anyone may read the archive; false: a private instance, where every other route wants a login' }),
  },
  { $id: 'LoginProviders' },
);

export const LocalLoginSchema = Type.Object({
  username: Type.String({ pattern: LOCAL_NAME_PATTERN, description: '1–64 letters, digits, ".", "_" or "-"' }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: '1–1024 characters' }),
  next: Type.Optional(Type.String({ maxLength: 2048, description: 'For HTML forms: a path of this instance to go to (303) after the login' })),
});

export const SetupSchema = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 256, description: 'The setup token from the server log line "No admin account yet"' }),
  username: Type.String({ pattern: LOCAL_NAME_PATTERN, description: 'The admin account to create: 1–64 letters, digits, ".", "_" or "-"' }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: '8–1024 characters' }),
});
