import type { Command } from 'commander';
import { hotGroupOf } from './command-word.js';
import { HOT_GROUPS } from './hot-commands.js';
import { createRootCommand } from './program-root.js';

/** The root with only the group of a hot command (hot-commands.ts), else the whole program. */
export async function programFor(args: readonly string[]): Promise<Command> {
  const group = hotGroupOf(args);
  if (group === undefined) {
    const { createProgram } = await import('./program.js');
    return createProgram();
  }
  const root = createRootCommand();
  (await HOT_GROUPS[group]())(root);
  return root;
}
