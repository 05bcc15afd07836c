import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CreateKeyBody,
  ErrorBody,
  KeyIdParams,
  KeyListResponse,
  KeyResponse,
  MessageResponse,
} from '../../src/api/contract.js';
import { MemError } from '../../src/errors.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { parseBound, presentKey } from '../present.js';


export function keyRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/keys',
      { schema: { summary: "List the account's API keys (values redacted)", tags: ['keys'], response: { 200: KeyListResponse } } },
      async (request) => {
        const { account, key: caller } = requireAuth(request.auth);
        const keys = await deps.auth.listKeys(account.id);
        return { success: true as const, keys: keys.map((key) => ({ ...presentKey(key), current: key.id === caller.id })) };
      },
    );

    app.post(
      '/keys',
      {
        schema: {
          summary: 'Create an API key (addition to the spec); the value is shown only in this response',
          tags: ['keys'],
          body: CreateKeyBody,
          response: { 201: KeyResponse, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const { account } = requireWrite(request.auth);
        const body = request.body;
        const expiresAt = parseBound(body.expiresAt, 'end');
        if (expiresAt !== undefined && expiresAt <= Date.now()) {
          throw new MemError('VALIDATION_ERROR', 'expiresAt must be in the future.');
        }
        const { record, value } = await deps.auth.createKey(account.id, {
          name: body.name,
          type: body.type,
          rateLimitPerHour: body.rateLimitPerHour,
          monthlyLimit: body.monthlyLimit,
          expiresAt,
          readOnly: body.readOnly,
        });
        return reply
          .status(201)
          .send({ success: true as const, message: 'Key created. Store it now: it is not shown again.', data: presentKey(record, value) });
      },
    );

    app.post(
      '/keys/:id/regenerate',
      {
        schema: {
          summary: 'Issue a new value for a key; the old value stops working immediately',
          tags: ['keys'],
          params: KeyIdParams,
          response: { 200: KeyResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const { account } = requireWrite(request.auth);
        const { record, value } = await deps.auth.regenerate(account.id, request.params.id);
        return { success: true as const, message: 'Key regenerated. Store it now: it is not shown again.', data: presentKey(record, value) };
      },
    );

    app.delete(
      '/keys/:id',
      {
        schema: {
          summary: 'Delete a key permanently',
          tags: ['keys'],
          params: KeyIdParams,
          response: { 200: MessageResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const { account } = requireWrite(request.auth);
        await deps.auth.deleteKey(account.id, request.params.id);
        return { success: true as const, message: 'Key deleted' };
      },
    );
  };
}
