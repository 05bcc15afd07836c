import { CommanderError, type Command } from 'commander';
import { HOT_COMMANDS } from './hot-command-index.js';
import { HOT_GROUPS } from './hot-commands.js';
import { printError } from './output.js';
import { createRootCommand } from './program-root.js';

/**
 * The command a command line runs: its first word after the global options (as the root declares them,
 * with the value of those that take one), or undefined when anything else comes first.
 */
export function commandWord(args: readonly string[], root: Command): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) return arg;
    const [flag, value] = arg.split(/=(.*)/s, 2);
    const option = root.options.find((candidate) => candidate.long === flag || candidate.short === flag);
    if (!option || option.long === '--version') return undefined;
    if (option.required && value === undefined) i++;
  }
  return undefined;
}

/** The root with only the group of a hot command (hot-commands.ts), else the whole program. */
export async function programFor(args: readonly string[]): Promise<Command> {
  const root = createRootCommand();
  const word = commandWord(args, root);
  const group = word === undefined || !Object.hasOwn(HOT_COMMANDS, word) ? undefined : HOT_COMMANDS[word];
  if (group === undefined) {
    const { createProgram } = await import('./program.js');
    return createProgram();
  }
  (await HOT_GROUPS[group]())(root);
  return root;
}

/** Parses argv, runs the command, maps errors to `error[CODE]: message` and exit codes. */
export async function runProgram(argv: readonly string[]): Promise<void> {
  // `mem ... | head` closes the pipe early: that is the reader being done, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const program = await programFor(argv.slice(2));
  program.exitOverride();
  program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
  const json = argv.includes('--json');
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    process.exitCode = printError(error, json);
    // Nothing may keep a failed command alive (a daemon that failed to start still has workers and
    // timers); stdout and stderr writes are synchronous on Linux and macOS pipes, files and terminals.
    process.exit();
  }
}
