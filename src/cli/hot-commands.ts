import type { Command } from 'commander';

/**
 * The command groups scripts, shell completions and agents run many times a session. When one of their
 * commands runs, the program is its root with that group alone (program-for.ts; hot-main.ts in the built CLI): the other twenty groups are
 * neither loaded nor built. Their commands never look at the rest of the program; `help` and `completion`,
 * which do, are not among them.
 */
export const HOT_GROUPS = {
  memories: () => import('./commands/memories.js').then((module) => module.registerMemoryCommands),
  answers: () => import('./commands/answers.js').then((module) => module.registerAnswerCommands),
  complete: () => import('./commands/complete.js').then((module) => module.registerCompleteCommand),
  mcp: () => import('./commands/mcp.js').then((module) => module.registerMcpCommand),
} satisfies Record<string, () => Promise<(program: Command) => void>>;

export type HotGroup = keyof typeof HOT_GROUPS;
