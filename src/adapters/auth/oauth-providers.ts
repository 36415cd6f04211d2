import { CodeChallengeMethod, Discord, Google, OAuth2Client, Twitch, decodeIdToken, type OAuth2Tokens } from 'arctic';
import type { Identity } from '../../core/accounts/account.js';
import type { LoginProvider } from '../../core/accounts/ports.js';

/** Credentials of one OAuth application, as the operator registered it. */
export interface OAuthCredentials {
  clientId: string;
  clientSecret: string;
}

export type OAuthProviderId = 'discord' | 'google' | 'twitch' | 'github';

const PROFILE_TIMEOUT_MS = 10_000;

/** Where each provider sends browsers to log in (arctic's endpoints), and what Kura asks for. */
const AUTHORIZE: Record<OAuthProviderId, { url: string; scopes: string[]; name: string }> = {
  discord: { url: 'https://discord.com/oauth2/authorize', scopes: ['identify'], name: 'Discord' },
  google: { url: 'https://accounts.google.com/o/oauth2/v2/auth', scopes: ['openid', 'profile'], name: 'Google' },
  twitch: { url: 'https://id.twitch.tv/oauth2/authorize', scopes: [], name: 'Twitch' },
  github: { url: 'https://github.com/login/oauth/authorize', scopes: ['read:user'], name: 'GitHub' },
};

async function getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    headers: { accept: 'application/json', 'user-agent': 'kura', ...headers },
    signal: AbortSignal.timeout(PROFILE_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`${new URL(url).host} answered HTTP ${response.status} for the profile`);
  return (await response.json()) as Record<string, unknown>;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null);

/** Exchanges the code (with the PKCE verifier where the provider implements it) and reads the profile. */
type Exchange = (code: string, codeVerifier: string, credentials: OAuthCredentials, redirectUri: string) => Promise<Identity>;

const EXCHANGES: Record<OAuthProviderId, Exchange> = {
  async discord(code, verifier, { clientId, clientSecret }, redirectUri) {
    const tokens = await new Discord(clientId, clientSecret, redirectUri).validateAuthorizationCode(code, verifier);
    const me = await getJson('https://discord.com/api/users/@me', { authorization: `Bearer ${tokens.accessToken()}` });
    const id = text(me.id) ?? '';
    const avatar = text(me.avatar);
    return {
      provider: 'discord',
      providerUserId: id,
      name: text(me.global_name) ?? text(me.username) ?? id,
      avatarUrl: avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : null,
    };
  },
  async google(code, verifier, { clientId, clientSecret }, redirectUri) {
    const tokens = await new Google(clientId, clientSecret, redirectUri).validateAuthorizationCode(code, verifier);
    // the ID token came straight from Google's token endpoint over TLS: no signature check needed
    const claims = decodeIdToken(tokens.idToken()) as Record<string, unknown>;
    const id = text(claims.sub) ?? '';
    return { provider: 'google', providerUserId: id, name: text(claims.name) ?? id, avatarUrl: text(claims.picture) };
  },
  async twitch(code, _verifier, { clientId, clientSecret }, redirectUri) {
    // Twitch does not implement PKCE (it ignores the challenge); the state check still binds the login
    const tokens: OAuth2Tokens = await new Twitch(clientId, clientSecret, redirectUri).validateAuthorizationCode(code);
    const body = await getJson('https://api.twitch.tv/helix/users', { authorization: `Bearer ${tokens.accessToken()}`, 'client-id': clientId });
    const me = ((body.data as unknown[] | undefined)?.[0] ?? {}) as Record<string, unknown>;
    const id = text(me.id) ?? '';
    return { provider: 'twitch', providerUserId: id, name: text(me.display_name) ?? text(me.login) ?? id, avatarUrl: text(me.profile_image_url) };
  },
  async github(code, verifier, { clientId, clientSecret }, redirectUri) {
    const tokens = await new OAuth2Client(clientId, clientSecret, redirectUri).validateAuthorizationCode(
      'https://github.com/login/oauth/access_token',
      code,
      verifier,
    );
    const me = await getJson('https://api.github.com/user', { authorization: `Bearer ${tokens.accessToken()}` });
    const id = text(me.id) ?? '';
    return { provider: 'github', providerUserId: id, name: text(me.name) ?? text(me.login) ?? id, avatarUrl: text(me.avatar_url) };
  },
};

/**
 * A login provider through arctic: the browser goes to the provider's authorize URL with the
 * state and an S256 PKCE challenge; the callback's code is exchanged with the verifier.
 * GitHub goes through arctic's generic client: its arctic class has no PKCE, GitHub itself does.
 */
export function createOAuthProvider(id: OAuthProviderId, credentials: OAuthCredentials, publicUrl: string): LoginProvider {
  const redirectUri = `${publicUrl}/auth/${id}/callback`;
  const { url, scopes, name } = AUTHORIZE[id];
  const client = new OAuth2Client(credentials.clientId, credentials.clientSecret, redirectUri);
  return {
    id,
    name,
    async authorizationUrl(attempt) {
      return client.createAuthorizationURLWithPKCE(url, attempt.state, CodeChallengeMethod.S256, attempt.codeVerifier, scopes);
    },
    async identify(callbackUrl, attempt) {
      const code = callbackUrl.searchParams.get('code');
      if (code === null) throw new Error('the callback has no code');
      const identity = await EXCHANGES[id](code, attempt.codeVerifier, credentials, redirectUri);
      if (identity.providerUserId === '') throw new Error('the profile has no user id');
      return identity;
    },
  };
}
