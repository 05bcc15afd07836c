import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CreatedUserResponse,
  CreateUserBody,
  ErrorBody,
  MessageResponse,
  UpdateUserBody,
  UserIdParams,
  UserListResponse,
  UserResponse,
} from '../../src/api/contract.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite } from '../plugins/auth.js';
import { presentKey, presentUser } from '../present.js';


/** User management for the owner account (additions to the spec): every other account gets 403. */
export function adminRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/admin/users',
      { schema: { summary: 'List users (owner only)', tags: ['admin'], response: { 200: UserListResponse, 403: ErrorBody } } },
      async (request) => {
        const users = await deps.accounts.listUsers(requireAuth(request.auth));
        return { success: true as const, users: users.map(presentUser) };
      },
    );

    app.post(
      '/admin/users',
      {
        schema: {
          summary: "Create a user and their first live key (owner only); the key's value is shown only here",
          tags: ['admin'],
          body: CreateUserBody,
          response: { 201: CreatedUserResponse, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        const { account, key, value } = await deps.accounts.createUser(requireWrite(request.auth), request.body);
        return reply.status(201).send({
          success: true as const,
          message: 'User created. Give them this key now: it is not shown again.',
          data: presentUser(account),
          key: presentKey(key, value),
        });
      },
    );

    app.patch(
      '/admin/users/:id',
      {
        schema: {
          summary: "Change a user's plan, name or company (owner only)",
          tags: ['admin'],
          params: UserIdParams,
          body: UpdateUserBody,
          response: { 200: UserResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const user = await deps.accounts.updateUser(requireWrite(request.auth), request.params.id, request.body);
        return { success: true as const, data: presentUser(user) };
      },
    );

    app.delete(
      '/admin/users/:id',
      {
        schema: {
          summary: 'Remove a user with all their keys and data, permanently (owner only)',
          tags: ['admin'],
          params: UserIdParams,
          response: { 200: MessageResponse, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        await deps.accounts.removeUser(requireWrite(request.auth), request.params.id);
        return { success: true as const, message: 'User removed with all their keys and data' };
      },
    );
  };
}
