import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, ProfileResponse, UpdateProfileBody, UsageQuery, UsageResponse } from '../../src/api/contract.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { presentProfile, presentUsage } from '../present.js';


/** GET /v1/usage, GET /v1/profile and PATCH /v1/profile (an addition to the spec). */
export function accountRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/v1/usage',
      {
        schema: {
          summary: 'Usage statistics of the account',
          description:
            "Counts the calling key's mode (live or test). Periods in the account time zone: day = since local midnight, week = the last 7 days, month = the last 30 days, all = since the account was created. limits.usedPercentage is this calendar month's requests (UTC) against the monthly limit.",
          tags: ['account'],
          querystring: UsageQuery,
          response: { 200: UsageResponse },
        },
      },
      async (request) => {
        const context = requireAuth(request.auth);
        const report = await deps.accounts.usage(context, { period: request.query.period, breakdown: request.query.breakdown });
        return { success: true as const, usage: presentUsage(report, context.key.type) };
      },
    );

    app.get(
      '/v1/profile',
      { schema: { summary: 'The profile of the authenticated user', tags: ['account'], response: { 200: ProfileResponse } } },
      async (request) => {
        const context = requireAuth(request.auth);
        return { success: true as const, profile: presentProfile(await deps.accounts.profile(context)) };
      },
    );

    app.patch(
      '/v1/profile',
      {
        schema: {
          summary: 'Change name, company and settings (addition to the spec)',
          description: 'settings.defaultSpace is used by saves without spaceId; settings.timezone must be an IANA name.',
          tags: ['account'],
          body: UpdateProfileBody,
          response: { 200: ProfileResponse, 403: ErrorBody },
        },
      },
      async (request) => {
        const context = requireWrite(request.auth);
        const account = await deps.accounts.updateProfile(context, request.body);
        return { success: true as const, profile: presentProfile(await deps.accounts.profile({ ...context, account })) };
      },
    );
  };
}
