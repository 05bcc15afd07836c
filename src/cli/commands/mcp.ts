import type { Command } from 'commander';
import { clientFor } from '../context.js';

export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('Run an MCP server on stdio so AI agents (Claude, Cursor, ...) can save, search and ask your memories')
    .addHelpText(
      'after',
      `
Talks to the daemon like every other command (--host, MEM_HOST, --start); stdout carries only the protocol.
Add it to an MCP client's configuration (Claude Desktop, Claude Code, Cursor, ...):
  {"mcpServers":{"mem":{"command":"mem","args":["mcp"]}}}

Examples:
  $ mem mcp
  $ mem --start mcp
  $ claude mcp add mem -- mem mcp`,
    )
    .action(async (_options: unknown, command: Command) => {
      const { client } = await clientFor(command);
      // Loaded here so that no other command pays for the MCP SDK.
      const { serveStdio } = await import('../../mcp/stdio.js');
      await serveStdio(client);
    });
}
