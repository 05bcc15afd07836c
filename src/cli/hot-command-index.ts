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
