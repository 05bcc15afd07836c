import { HOT_GROUPS, type HotGroup } from './hot-commands.js';
import { createRootCommand } from './program-root.js';

/*
 * Evaluated when the CLI is bundled (scripts/bundle-cli.mjs): the bundle holds the table as a literal, so
 * that finding the group of a command loads none of them.
 */

/** Each name and alias of a hot command, with its group. */
export const HOT_COMMANDS: Readonly<Record<string, HotGroup>> = Object.fromEntries(
  await Promise.all(
    (Object.keys(HOT_GROUPS) as HotGroup[]).map(async (group) => {
      const root = createRootCommand();
      (await HOT_GROUPS[group]())(root);
      return root.commands.flatMap((command) => [command.name(), ...command.aliases()].map((name) => [name, group] as const));
    }),
  ).then((entries) => entries.flat()),
);

/**
 * The hot groups that run from the one-file bundle of the hot path (hot-main.ts), chosen by the launcher
 * before it loads anything; `mcp` runs from main.js (the MCP SDK is loaded as ES modules, and its command
 * answers `initialize` early on its own).
 */
export const BUNDLED_GROUPS = ['memories', 'answers', 'complete'] as const satisfies readonly HotGroup[];
