import type { MemClient } from '../client/http-client.js';

/**
 * What the MCP server needs from the Memory API: the typed client's methods, nothing more. `mem mcp` passes
 * the CLI's MemClient; the daemon's /mcp route passes a MemClient pointed back at the daemon with the
 * caller's key, so both transports go through the same routes, auth and limits.
 */
export type MemoryApi = Pick<
  MemClient,
  'save' | 'search' | 'ask' | 'remind' | 'getMemory' | 'updateMemory' | 'deleteMemory' | 'listMemories' | 'entities' | 'facts' | 'graph'
>;
