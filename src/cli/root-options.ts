import { createRootCommand } from './program-root.js';

/*
 * Evaluated when the CLI is bundled (scripts/bundle-cli.mjs): the bundle holds the table as a literal, so that
 * the launcher finds the command word of a command line (command-word.ts) without commander.
 */

/** The root's global options: their flags, and whether each takes a value. */
export const ROOT_OPTIONS: readonly { readonly long: string | null; readonly short: string | null; readonly takesValue: boolean }[] =
  createRootCommand().options.map((option) => ({ long: option.long ?? null, short: option.short ?? null, takesValue: option.required }));
