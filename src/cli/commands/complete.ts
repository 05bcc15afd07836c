import type { Command } from 'commander';
import type { MemClient } from '../../client/http-client.js';
import { DAEMON_VALUE_KINDS, type DaemonValueKind } from '../completion-values.js';
import { quickClientFor } from '../context.js';

/** How long a completion waits for the daemon: past a second, a shell user thinks TAB is broken. */
const TIMEOUT_MS = 1000;
/** How many of the most recent memories and jobs are offered: what one is likely working on, at once. */
const RECENT = 50;

interface Candidate {
  readonly value: string;
  /** Shown next to the value by shells that can (fish); never part of what is inserted. */
  readonly description: string;
}

/** The values of each kind the daemon knows, newest or most mentioned first. */
const SOURCES: Record<DaemonValueKind, (client: MemClient, prefix: string) => Promise<Candidate[]>> = {
  keys: async (client) => (await client.listKeys()).keys.map((key) => ({ value: key.id, description: key.name })),
  users: async (client) => (await client.listUsers()).users.map((user) => ({ value: user.id, description: user.email || user.name })),
  watches: async (client) =>
    (await client.listWatches()).watches.flatMap((watch) => [
      { value: watch.id, description: watch.path },
      { value: watch.path, description: watch.id },
    ]),
  jobs: async (client) =>
    (await client.listJobs(RECENT)).jobs
      .filter((job) => job.kind === 'ingest')
      .map((job) => ({ value: job.jobId, description: job.status })),
  // A structured query for the ids and titles alone: the list route sends each memory whole, and 50 imported
  // pages would make a Tab press read megabytes (the same order as the list: newest first, ties by id descending).
  memories: async (client) =>
    (await client.query({ fields: ['title'], sort: { createdAt: -1, id: -1 }, limit: RECENT })).results.map((memory) => ({ value: memory.id, description: memory.title ?? '' })),
  entities: async (client, prefix) => {
    // The daemon matches a substring of names and aliases; the prefix test below keeps those that start with it.
    const { entities } = await client.entities({ search: prefix || undefined, sortBy: 'mentions', limit: 100 });
    return entities.flatMap((entity) => [
      { value: entity.name, description: entity.type },
      ...(prefix ? entity.aliases.map((alias) => ({ value: alias, description: `${entity.type}, alias of ${entity.name}` })) : []),
    ]);
  },
};

/** The home directory, for paths typed as `~/...`. */
const home = () => process.env.HOME ?? process.env.USERPROFILE;

/**
 * The candidates that start with what was typed (case-insensitive). A typed `~/no` (the shell left the
 * tilde alone, since the word is not finished) finds the watched /home/me/notes and offers it as ~/notes.
 */
function matching(candidates: readonly Candidate[], prefix: string): Candidate[] {
  const typed = prefix.toLowerCase();
  const homeDir = /^~(\/|$)/.test(prefix) ? home() : undefined;
  const seen = new Set<string>();
  const found: Candidate[] = [];
  for (const candidate of candidates) {
    let value = candidate.value;
    if (homeDir && value.startsWith(`${homeDir}/`)) value = `~${value.slice(homeDir.length)}`;
    // One value per line: a value with a line break or a tab could not be told apart from the next.
    if (seen.has(value) || /[\t\n\r]/.test(value) || !value.toLowerCase().startsWith(typed)) continue;
    seen.add(value);
    found.push({ ...candidate, value });
  }
  return found;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 60);

export function registerCompleteCommand(program: Command): void {
  program
    .command('__complete', { hidden: true })
    .description('Values for shell completion from the daemon, one per line (used by the completion scripts)')
    .argument('[kind]', DAEMON_VALUE_KINDS.join(', '))
    .argument('[prefix]', 'only values starting with this (case-insensitive)', '')
    .option('--describe', 'add a tab and a short description to each value (fish shows it)')
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText(
      'after',
      `
Never starts the daemon; prints nothing and exits 0 when it does not answer within ${TIMEOUT_MS} ms.

Examples:
  $ mem __complete keys
  $ mem __complete entities Sar
  $ mem __complete --describe memories mem_01`,
    )
    .action(async (kind: string | undefined, prefix: string, options: { describe?: boolean }, command: Command) => {
      // Whatever happens (a slow keychain, a hung socket), the shell gets its prompt back.
      setTimeout(() => process.exit(0), 2 * TIMEOUT_MS).unref();
      if (!kind || !(DAEMON_VALUE_KINDS as readonly string[]).includes(kind)) return;
      let candidates: Candidate[];
      try {
        const client = await quickClientFor(command, TIMEOUT_MS);
        candidates = matching(await SOURCES[kind as DaemonValueKind](client, prefix), prefix);
      } catch {
        return; // no daemon, no key, an error: no candidates, and nothing on stderr to mess up the prompt
      }
      const lines = candidates.map((candidate) =>
        options.describe && candidate.description ? `${candidate.value}\t${oneLine(candidate.description)}` : candidate.value,
      );
      if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
    });
}
