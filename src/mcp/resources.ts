import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MemError } from '../errors.js';
import type { MemoryApi } from './memory-api.js';
import { memoryMarkdown } from './render.js';

/** How many memories the resource list shows: the most recent ones (clients list them to pick from). */
export const RECENT_MEMORIES = 50;

/** JSON-RPC codes for resource reads: the MCP spec's "resource not found", else the JSON-RPC ones. */
function resourceError(error: unknown): McpError {
  const memError = error instanceof MemError ? error : new MemError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
  const code = memError.code === 'NOT_FOUND' ? -32002 : memError.code === 'VALIDATION_ERROR' ? -32602 : -32603;
  return new McpError(code, `${memError.code}: ${memError.message}`);
}

export const memoryUri = (id: string) => `mem://memory/${id}`;

/** Memories as resources: `mem://memory/{id}` reads one as markdown; the list shows the most recent. */
export function registerMemoryResources(server: McpServer, api: MemoryApi): void {
  const template = new ResourceTemplate('mem://memory/{id}', {
    list: async () => {
      try {
        const recent = await api.listMemories({ limit: RECENT_MEMORIES });
        return {
          resources: recent.data.map((memory) => ({
            uri: memoryUri(memory.id),
            name: memory.id,
            title: memory.title || memory.id,
            description: `${memory.createdAt.slice(0, 10)}${memory.tags.length > 0 ? ` [${memory.tags.join(', ')}]` : ''}: ${memory.content.replace(/\s+/g, ' ').slice(0, 200)}`,
            mimeType: 'text/markdown',
          })),
        };
      } catch (error) {
        throw resourceError(error);
      }
    },
  });
  server.registerResource(
    'memory',
    template,
    {
      title: 'Memory',
      description: `A saved memory as markdown (front matter with id, title, tags, dates; then the content). The list shows the ${RECENT_MEMORIES} most recent.`,
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      const id = Array.isArray(variables.id) ? variables.id[0] : variables.id;
      try {
        const { data } = await api.getMemory(decodeURIComponent(id ?? ''));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: memoryMarkdown(data) }] };
      } catch (error) {
        throw resourceError(error);
      }
    },
  );
}
