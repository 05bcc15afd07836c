import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext, AuthService, KeyCredentials } from '../../src/core/auth-service.js';
import { MemError } from '../../src/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

/** Paths that need no key: liveness and the API description. */
const PUBLIC_PATHS = new Set(['/health', '/openapi.json']);

/** Authenticates every request except the public ones; routes read `request.auth`. */
export function registerAuth(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0] ?? '';
    if (PUBLIC_PATHS.has(path)) return;
    request.auth = await auth.authenticate(credentialsOf(request));
  });
}

/** The key headers of a request: `Authorization` and `X-API-Key` (see presentedKey for the rules). */
export function credentialsOf(request: FastifyRequest): KeyCredentials {
  const apiKey = request.headers['x-api-key'];
  // A repeated X-API-Key arrives joined ("a, b") or as an array: either way never a valid key, so refused.
  return { authorization: request.headers.authorization, apiKey: Array.isArray(apiKey) ? apiKey.join(', ') : apiKey };
}

export function requireAuth(auth: AuthContext | null): AuthContext {
  if (!auth) throw new MemError('UNAUTHORIZED', 'Authentication required');
  return auth;
}

/** Writes refused for read-only keys (403 FORBIDDEN). */
export function requireWrite(auth: AuthContext | null): AuthContext {
  const context = requireAuth(auth);
  if (context.key.readOnly) {
    throw new MemError('FORBIDDEN', 'This API key is read-only; use a key with write access.');
  }
  return context;
}

/** The space a write goes to: the one the request names, else the profile's default space (none when empty). */
export function spaceFor(auth: AuthContext, spaceId: string | undefined): string | undefined {
  return spaceId ?? (auth.account.settings.defaultSpace || undefined);
}
