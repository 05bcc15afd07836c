import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MemClient } from '../../src/client/http-client.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { AppDeps } from '../deps.js';
import { presentedKey } from '../../src/core/auth-service.js';
import { credentialsOf, requireAuth } from '../plugins/auth.js';

/** The JSON-RPC answer to GET and DELETE: a stateless server has no stream to open and no session to end. */
const METHOD_NOT_ALLOWED = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages.' }, id: null };

/**
 * MCP over streamable HTTP at /mcp, stateless: each POST gets its own server and transport. The tools call
 * this same daemon over HTTP with the caller's key (a MemClient on runtime.address()), so the MCP tools see
 * exactly what the key may see and do, with the API's auth, validation and errors. The auth hook has
 * already refused a request without a valid key (401) before this handler runs.
 */
export function mcpRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/mcp',
      {
        schema: {
          summary: 'Model Context Protocol (streamable HTTP, stateless): the tools and resources of `mem mcp`',
          description: 'JSON-RPC messages of MCP 2025-11-25; send Accept: application/json, text/event-stream.',
          tags: ['mcp'],
          response: {
            200: z.object({ jsonrpc: z.literal('2.0') }).catchall(z.unknown()).describe('The JSON-RPC response (or an event stream of them).'),
          },
        },
      },
      async (request, reply) => {
        requireAuth(request.auth);
        // The tools call back with the key this request presented, whichever header carried it.
        const apiKey = presentedKey(credentialsOf(request));
        const server = createMcpServer(new MemClient({ baseUrl: deps.runtime.address(), apiKey }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        // From here the SDK writes the response on the raw socket.
        reply.hijack();
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        try {
          await server.connect(transport);
          await transport.handleRequest(request.raw, reply.raw, request.body);
        } catch (error) {
          request.log.error({ err: error }, 'MCP request failed');
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(500, { 'content-type': 'application/json' });
            reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
          }
        }
      },
    );

    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp',
        schema: { hide: true },
        handler: async (request, reply) => {
          requireAuth(request.auth);
          return reply.status(405).header('allow', 'POST').send(METHOD_NOT_ALLOWED);
        },
      });
    }
  };
}
