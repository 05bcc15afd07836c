import { Command } from 'commander';
import { VERSION } from '../version.js';

/**
 * The root of the program: its description, global options and help text, with no commands. createProgram
 * registers every command on it; program-for.ts and hot-main.ts only the group of the command being run, when that is one
 * of the commands scripts run in loops (hot-commands.ts).
 */
export function createRootCommand(): Command {
  return new Command('mem')
    .description('mem: a local-first memory. Save what you read, write and learn; find it again by meaning.')
    .version(VERSION, '-V, --version')
    .option('--json', 'print results as JSON on stdout')
    .option('-q, --quiet', 'print only results, no messages')
    .option('--host <url>', 'daemon URL (default: MEM_HOST, the running daemon, or http://127.0.0.1:7373); for serve and daemon start, the address to bind')
    .option('--start', 'start the daemon in the background if none is running')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ mem daemon start
  $ mem save "Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap" --tags work,acme
  $ mem search "who did I meet about planning?"
  $ mem ask "When am I meeting Sarah and what about?"
  $ mem remind "Preparing the quarterly review with Acme" --timeframe month
  $ mem ls --tags acme
  $ mem get <id>

Environment: MEM_HOME, MEM_HOST, MEM_PORT, MEM_API_KEY, MEM_EMBEDDER, MEM_OLLAMA_HOST, NO_COLOR.
Exit codes: 0 ok, 1 internal, 2 invalid input, 3 unauthorized, 4 forbidden, 5 not found,
            6 content too large, 7 limit exceeded, 8 invalid url, 9 rate limited,
            10 model unavailable, 11 daemon unreachable.`,
    );
}
