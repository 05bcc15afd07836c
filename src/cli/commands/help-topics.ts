import type { Command } from 'commander';
import { ERROR_TABLE, ERROR_CODES, MemError } from '../../errors.js';
import { suggestionText } from '../did-you-mean.js';
import { outputFor } from '../context.js';
import { style, table } from '../output.js';

/**
 * `mem help [command...]` plus help topics (`mem help exit-codes`). It replaces commander's implicit help
 * command (which knows only commands) with a real one that does the same for commands, nested ones too
 * (`mem help keys create`), and prints a topic when the word names one.
 */
export interface ExitCodeRow {
  readonly code: string | null;
  readonly status: number | null;
  readonly exitCode: number;
  readonly description: string;
}

/** The exit codes of `mem`, generated from the one error table, success first, then by exit code. */
export function exitCodeRows(): ExitCodeRow[] {
  const errors = ERROR_CODES.map((code) => ({ code, ...ERROR_TABLE[code] }))
    .sort((a, b) => a.exitCode - b.exitCode)
    .map(({ code, status, exitCode, description }) => ({ code, status, exitCode, description }));
  return [{ code: null, status: null, exitCode: 0, description: 'Success.' }, ...errors];
}

function renderExitCodes(rows: readonly ExitCodeRow[]): string {
  return [
    table(
      rows.map((row) => [String(row.exitCode), row.code ?? '-', row.status === null ? '2xx' : String(row.status), row.description]),
      ['EXIT', 'CODE', 'HTTP', 'MEANING'],
    ),
    '',
    style.dim('Usage errors (unknown command or option, missing argument) also exit 2.'),
    style.dim('With --json, a failure prints {"success": false, "error": CODE, "message": ...} on stdout.'),
  ].join('\n');
}

interface HelpTopic {
  readonly description: string;
  print(command: Command): void;
}

const TOPICS: Record<string, HelpTopic> = {
  'exit-codes': {
    description: 'exit codes, error codes and HTTP statuses',
    print(command) {
      const rows = exitCodeRows();
      outputFor(command).result({ exitCodes: rows }, () => renderExitCodes(rows));
    },
  },
};

function findCommand(parent: Command, word: string): Command | undefined {
  return parent.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
}

export function registerHelpCommand(program: Command): void {
  const topics = Object.keys(TOPICS);
  program
    .command('help')
    .description(`Help for a command, or a topic: ${topics.join(', ')}`)
    .argument('[command...]', `a command (e.g. save, keys create) or a topic (${topics.join(', ')})`)
    .addHelpText(
      'after',
      `
Topics:
${Object.entries(TOPICS)
  .map(([name, topic]) => `  ${name.padEnd(12)}${topic.description}`)
  .join('\n')}

Examples:
  $ mem help save
  $ mem help keys create
  $ mem help exit-codes`,
    )
    .action((words: string[], _options: unknown, command: Command) => {
      const [first] = words;
      if (first === undefined) {
        program.outputHelp();
        return;
      }
      const topic = words.length === 1 ? TOPICS[first] : undefined;
      if (topic) {
        topic.print(command);
        return;
      }
      let target = program;
      for (const word of words) {
        const sub = findCommand(target, word);
        if (!sub) {
          const names = [...target.commands.map((entry) => entry.name()), ...(target === program ? topics : [])];
          throw new MemError('VALIDATION_ERROR', `Unknown command or help topic "${words.join(' ')}".${suggestionText(word, names)}`, {
            hint: `See the commands with \`mem --help\`; topics: ${topics.join(', ')}.`,
          });
        }
        target = sub;
      }
      target.outputHelp();
    });
}
