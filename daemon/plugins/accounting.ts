import type { FastifyInstance } from 'fastify';
import type { RateLimiter } from '../../src/core/accounts/rate-limiter.js';
import type { UsageRecorder } from '../../src/core/accounts/usage-recorder.js';
import { MemError } from '../../src/errors.js';

/**
 * The MCP endpoint is not counted itself: every tool call it runs is an API request of its own that is
 * (otherwise one MCP call would count twice).
 */
export const NOT_COUNTED = new Set(['/mcp']);

/**
 * Rate limits and usage accounting for every authenticated request (after the auth hook). Every response of
 * an authenticated request carries X-RateLimit-Limit, -Remaining and -Reset (epoch seconds; -1 for unlimited);
 * a request over a limit gets 429 RATE_LIMITED with Retry-After. Each request is recorded (route pattern,
 * status, latency, key) in a buffer written once a second.
 */
export function registerAccounting(app: FastifyInstance, deps: { limiter: RateLimiter; recorder: UsageRecorder }): void {
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.auth;
    if (!auth || NOT_COUNTED.has(request.routeOptions.url ?? '')) return;
    const decision = await deps.limiter.admit(auth.account, auth.key);
    void reply.header('X-RateLimit-Limit', String(decision.limit ?? -1));
    void reply.header('X-RateLimit-Remaining', String(decision.remaining ?? -1));
    void reply.header('X-RateLimit-Reset', String(Math.ceil(decision.resetAt / 1000)));
    if (!decision.allowed) {
      const monthly = decision.window === 'month';
      throw new MemError('RATE_LIMITED', 'Rate limit exceeded', {
        extra: {
          retryAfter: decision.retryAfter,
          usage: {
            requestsThisHour: decision.requestsThisHour,
            limit: monthly ? decision.monthlyLimit : decision.hourlyLimit,
            ...(monthly ? { requestsThisMonth: decision.requestsThisMonth, window: 'month' } : {}),
          },
        },
        hint: monthly ? 'The monthly request limit is reached; it resets on the 1st (UTC).' : `Retry in ${decision.retryAfter} s.`,
      });
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const auth = request.auth;
    if (!auth || NOT_COUNTED.has(request.routeOptions.url ?? '')) return;
    deps.recorder.record({
      accountId: auth.account.id,
      keyId: auth.key.id,
      keyType: auth.key.type,
      method: request.method,
      endpoint: request.routeOptions.url ?? '(no route)',
      status: reply.statusCode,
      latencyMs: Math.round(reply.elapsedTime * 100) / 100,
      at: Date.now(),
    });
  });
}
