import { Command } from 'commander';
import { VERSION } from '../version.js';
import { registerAccountCommands } from './commands/account.js';
import { registerAnswerCommands } from './commands/answers.js';
import { registerCompleteCommand } from './commands/complete.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerConfigCommands } from './commands/config.js';
import { registerDaemonCommands } from './commands/daemon.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerHelpCommand } from './commands/help-topics.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerIngestCommands } from './commands/ingest.js';
import { registerKnowledgeCommands } from './commands/knowledge.js';
import { registerLoginCommands } from './commands/login.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerMemoryCommands } from './commands/memories.js';
import { registerQueryCommand } from './commands/query.js';
import { registerReindexCommand } from './commands/reindex.js';
import { registerTuiCommand } from './commands/tui.js';
import { registerUserCommands } from './commands/users.js';
import { registerWatchCommands } from './commands/watch.js';
import { registerBackupCommands } from './commands/backup.js';
import { registerExportCommand } from './commands/export.js';
import { registerImportCommand } from './commands/import.js';

export function createProgram(): Command {
  const program = new Command('mem')
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
  registerMemoryCommands(program);
  registerQueryCommand(program);
  registerIngestCommands(program);
  registerAnswerCommands(program);
  registerDaemonCommands(program);
  registerKeyCommands(program);
  registerAccountCommands(program);
  registerUserCommands(program);
  registerLoginCommands(program);
  registerKnowledgeCommands(program);
  registerReindexCommand(program);
  registerMcpCommand(program);
  registerCompletionCommand(program);
  registerCompleteCommand(program);
  registerTuiCommand(program);
  registerConfigCommands(program);
  registerDoctorCommand(program);
  registerWatchCommands(program);
  registerExportCommand(program);
  registerImportCommand(program);
  registerBackupCommands(program);
  registerHelpCommand(program);
  return program;
}
