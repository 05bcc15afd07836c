import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { MemoryApi } from './memory-api.js';
import { createMcpServer } from './server.js';

/*
 * Evaluated when the CLI is bundled (scripts/bundle-cli.mjs): the bundle holds these answers as literals, so
 * that `mem mcp` answers `initialize` before it loads the MCP SDK, which builds its ~200 protocol schemas
 * at import (early-initialize.ts). They are the SDK server's own answers, taken from it here, so the two
 * cannot differ.
 */

/** A version no client sends: the SDK answers it, like any version it does not support, with its latest. */
const UNSUPPORTED = 'mem-unsupported-version';

async function sdkAnswer(protocolVersion: string): Promise<Record<string, unknown>> {
  // initialize never calls the Memory API.
  const server = createMcpServer(new Proxy({}, { get: () => () => Promise.reject(new Error('not called')) }) as MemoryApi);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answer = new Promise<Record<string, unknown>>((resolve) => {
    clientSide.onmessage = (message) => resolve((message as { result: Record<string, unknown> }).result);
  });
  await server.connect(serverSide);
  await clientSide.start();
  await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'mem-build', version: '1' } } });
  const result = await answer;
  await server.close();
  return result;
}

/** The SDK server's `initialize` result for each protocol version it supports. */
export const INITIALIZE_RESULTS: Readonly<Record<string, Record<string, unknown>>> = Object.fromEntries(
  await Promise.all(SUPPORTED_PROTOCOL_VERSIONS.map(async (version) => [version, await sdkAnswer(version)] as const)),
);

/** Its result when the client asks for a version it does not support. */
export const UNSUPPORTED_VERSION_RESULT: Readonly<Record<string, unknown>> = await sdkAnswer(UNSUPPORTED);
