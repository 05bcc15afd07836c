import { HOT_COMMANDS } from './hot-command-index.js';
import type { HotGroup } from './hot-commands.js';
import { ROOT_OPTIONS } from './root-options.js';

/**
 * The command a command line runs: its first word after the global options (as the root declares them,
 * with the value of those that take one), or undefined when anything else comes first.
 */
export function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) return arg;
    const [flag, value] = arg.split(/=(.*)/s, 2);
    const option = ROOT_OPTIONS.find((candidate) => candidate.long === flag || candidate.short === flag);
    if (!option || option.long === '--version') return undefined;
    if (option.takesValue && value === undefined) i++;
  }
  return undefined;
}

/** The group of the hot command (hot-commands.ts) a command line runs, if it runs one. */
export function hotGroupOf(args: readonly string[]): HotGroup | undefined {
  const word = commandWord(args);
  return word === undefined || !Object.hasOwn(HOT_COMMANDS, word) ? undefined : HOT_COMMANDS[word];
}
