import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../version.js';
import type { MemoryApi } from './memory-api.js';
import { registerMemoryResources } from './resources.js';
import { registerTools } from './tools.js';

export type { MemoryApi } from './memory-api.js';

/** What a client shows the model about this server as a whole. */
const INSTRUCTIONS =
  "mem is the user's local long-term memory. Search it (search_memories, or ask for a direct answer) before " +
  'answering anything that may depend on what the user saved or told you before; save durable information ' +
  '(decisions, facts about people and projects, preferences) with save_memory; use remind at the start of a ' +
  'task. Entities, facts and the knowledge graph are extracted from memories automatically.';

/**
 * The MCP server of mem, independent of its transport: tools and resources over a MemoryApi. Every call
 * goes through the Memory API, so validation, auth and errors are the API's; failures come back as tool
 * errors (`CODE: message`), never as a crashed server.
 */
export function createMcpServer(api: MemoryApi): McpServer {
  const server = new McpServer({ name: 'mem', title: 'mem memory', version: VERSION }, { instructions: INSTRUCTIONS });
  registerTools(server, api);
  registerMemoryResources(server, api);
  return server;
}
