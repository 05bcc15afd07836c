import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MemoryApi } from './memory-api.js';
import { createMcpServer } from './server.js';

/**
 * Serves MCP on stdin/stdout until the client closes stdin. stdout carries only the protocol: console
 * output from any library is sent to stderr while serving, since one stray line would corrupt the stream.
 */
export async function serveStdio(api: MemoryApi): Promise<void> {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  const server = createMcpServer(api);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    // The SDK's transport does not watch for end of input; without this the process would never exit.
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    transport.onclose = resolve;
  });
  await server.connect(transport);
  process.stderr.write('mem MCP server ready on stdio\n');
  await closed;
  await server.close();
}
