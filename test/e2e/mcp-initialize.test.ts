import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';
import type { MemoryApi } from '../../src/mcp/memory-api.js';
import { createMcpServer } from '../../src/mcp/server.js';

/**
 * The built `mem mcp` answers `initialize` from answers the bundle took from the SDK at build time
 * (src/mcp/initialize-answers.ts): they must be the lines this SDK server writes today, for each version.
 * No daemon is needed for `initialize` (the rest of the session is test/e2e/mcp.test.ts).
 */
const home = tempHome('mem-mcp-init-');
afterAll(() => home.remove());

async function sdkLine(request: string): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = createMcpServer({} as MemoryApi);
  await server.connect(new StdioServerTransport(input, output));
  const line = new Promise<string>((resolve) => output.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
  input.write(`${request}\n`);
  const answer = await line;
  await server.close();
  return answer;
}

describe('mem mcp: initialize', () => {
  it('answers each protocol version with the SDK server’s own line', async () => {
    for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
      const request = JSON.stringify({ jsonrpc: '2.0', id: version, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
      const result = await mem(['mcp'], { ...home.env, MEM_HOST: 'http://127.0.0.1:9' }, { input: `${request}\n` });
      expect(result.exitCode, result.stderr).toBe(0);
      // execa drops the final newline of stdout.
      expect(`${result.stdout}\n`, version).toBe(await sdkLine(request));
      expect(result.stderr).toContain('mem MCP server ready on stdio');
    }
  });
});
