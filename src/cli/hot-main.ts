import type { Command } from 'commander';
import { registerAnswerCommands } from './commands/answers.js';
import { registerCompleteCommand } from './commands/complete.js';
import { registerMemoryCommands } from './commands/memories.js';
import { hotGroupOf } from './command-word.js';
import type { BUNDLED_GROUPS } from './hot-command-index.js';
import { createRootCommand } from './program-root.js';
import { runProgram } from './run-program.js';

/**
 * The entry of the one-file bundle of the hot path (dist/cli/hot.cjs, scripts/bundle-cli.mjs): the groups
 * whose commands scripts, completions and agents run many times a session, with what they run (the client,
 * the client settings) in the same file, so that Node reads and compiles one script, from its code cache
 * (launch.ts), instead of resolving ~20 ES modules.
 */
export const IN_BUNDLE: Record<(typeof BUNDLED_GROUPS)[number], (program: Command) => void> = {
  memories: registerMemoryCommands,
  answers: registerAnswerCommands,
  complete: registerCompleteCommand,
};

/**
 * Runs the command line if the hot path has it, as main.ts would (the same registrations on the same root,
 * the same runProgram); false leaves it to main.ts, with nothing printed or changed.
 */
export async function runHot(argv: readonly string[]): Promise<boolean> {
  const group = hotGroupOf(argv.slice(2));
  const register = group === undefined || !Object.hasOwn(IN_BUNDLE, group) ? undefined : IN_BUNDLE[group as keyof typeof IN_BUNDLE];
  if (register === undefined) return false;
  const root = createRootCommand();
  register(root);
  await runProgram(argv, root);
  return true;
}
