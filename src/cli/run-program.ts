import { CommanderError, type Command } from 'commander';
import { printError } from './output.js';

/**
 * Parses argv with `program` (the whole program, or a root with the command's group: program-for.ts,
 * hot-main.ts), runs the command, maps errors to `error[CODE]: message` and exit codes.
 */
export async function runProgram(argv: readonly string[], program: Command): Promise<void> {
  // `mem ... | head` closes the pipe early: that is the reader being done, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
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
