import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';

/** Every command and subcommand of the program, hidden ones too, with the words that reach it. */
function everyCommand(command: Command, path: string[] = []): { command: Command; path: string }[] {
  return command.commands.flatMap((sub) => [{ command: sub, path: [...path, sub.name()].join(' ') }, ...everyCommand(sub, [...path, sub.name()])]);
}

/** What `mem <path> --help` prints: the help plus the text added after it (where the examples are). */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

describe('--help', () => {
  const program = createProgram();
  const commands = everyCommand(program);

  it('walks the whole program', () => {
    expect(commands.length).toBeGreaterThan(40);
    expect(commands.map((entry) => entry.path)).toEqual(expect.arrayContaining(['save', 'keys create', 'users set-tier', 'watch remove', '__complete']));
  });

  it('of mem shows examples', () => {
    expect(helpOf(program)).toMatch(/Examples:\n\s+\$ mem \S/);
  });

  it.each(commands.map((entry) => [entry.path, entry.command] as const))('of mem %s shows examples', (path, command) => {
    expect(helpOf(command), `mem ${path} --help`).toMatch(/Examples:\n\s+\$ \S/);
  });
});
