import * as oidc from 'openid-client';
import type { LoginProvider } from '../../core/accounts/ports.js';

/** OIDC_*: one OpenID Connect provider (Authentik, Keycloak, Authelia…). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
}

const TIMEOUT_SECONDS = 10;

/**
 * The generic OpenID Connect provider (openid-client): discovery on first use (retried after a
 * failure), authorization code flow with S256 PKCE, state and nonce all checked by the library.
 * An `http:` issuer is only accepted for loopback hosts (config refuses others).
 */
export function createOidcProvider(settings: OidcSettings, publicUrl: string): LoginProvider {
  const redirectUri = `${publicUrl}/auth/oidc/callback`;
  let discovered: Promise<oidc.Configuration> | null = null;
  const configuration = () => {
    discovered ??= oidc
      .discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, undefined, {
        timeout: TIMEOUT_SECONDS,
        ...(settings.issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : {}),
      })
      .catch((error: unknown) => {
        discovered = null;
        throw error;
      });
    return discovered;
  };
  return {
    id: 'oidc',
    name: settings.name,
    async authorizationUrl(attempt) {
      return oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: redirectUri,
        scope: 'openid profile',
        state: attempt.state,
        nonce: attempt.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(attempt.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async identify(callbackUrl, attempt) {
      const tokens = await oidc
        .authorizationCodeGrant(await configuration(), callbackUrl, {
          pkceCodeVerifier: attempt.codeVerifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        })
        .catch((error: unknown) => {
          throw new Error(describe(error));
        });
      const claims = tokens.claims();
      if (claims === undefined) throw new Error('no ID token');
      const name = [claims.name, claims.preferred_username, claims.sub].find((v): v is string => typeof v === 'string' && v !== '');
      return { provider: 'oidc', providerUserId: claims.sub, name: name ?? claims.sub, avatarUrl: typeof claims.picture === 'string' ? claims.picture : null };
    },
  };
}

/** The library's message with its cause's, which names the check that failed (a nonce, an audience…). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${message}: ${cause.message}` : message;
}
