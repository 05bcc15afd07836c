import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { BUNDLED_GROUPS, HOT_COMMANDS } from '../../src/cli/hot-command-index.js';
import { HOT_GROUPS } from '../../src/cli/hot-commands.js';
import { IN_BUNDLE } from '../../src/cli/hot-main.js';
import { ROOT_OPTIONS } from '../../src/cli/root-options.js';
import { createProgram } from '../../src/cli/program.js';
import { createRootCommand } from '../../src/cli/program-root.js';
import { commandWord } from '../../src/cli/command-word.js';
import { programFor } from '../../src/cli/program-for.js';

/**
 * The commands scripts run in loops get a program with their own group of commands only (program-for.ts):
 * each must be the same command, with the same options and help, as in the whole program.
 */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk), getOutHelpWidth: () => 80 });
  command.outputHelp();
  return text;
}

function find(program: Command, name: string): Command | undefined {
  return program.commands.find((command) => command.name() === name || command.aliases().includes(name));
}

describe('hot commands', () => {
  it('are the commands of the memory, answer, completion and MCP groups, with their aliases', () => {
    expect(HOT_COMMANDS).toMatchObject({ save: 'memories', search: 'memories', ls: 'memories', get: 'memories', rm: 'memories', ask: 'answers', remind: 'answers', __complete: 'complete', mcp: 'mcp' });
    for (const name of ['help', 'completion', 'daemon', 'keys', 'serve', 'tui', 'query']) expect(Object.hasOwn(HOT_COMMANDS, name), name).toBe(false);
    expect(Object.hasOwn(HOT_COMMANDS, 'toString')).toBe(false);
  });

  it('find the command word after the global options and their values', () => {
    expect(commandWord(['search', 'x'])).toBe('search');
    expect(commandWord(['--json', '-q', 'search', '--json'])).toBe('search');
    expect(commandWord(['--host', 'http://127.0.0.1:1', 'save', 'x'])).toBe('save');
    expect(commandWord(['--host=http://127.0.0.1:1', '--start', 'ask', 'x'])).toBe('ask');
    // Anything the root does not declare, and --version or --help, leave the command line to the whole program.
    expect(commandWord(['--bogus', 'search'])).toBeUndefined();
    expect(commandWord(['-V', 'search'])).toBeUndefined();
    expect(commandWord(['--help', 'search'])).toBeUndefined();
    expect(commandWord(['--host'])).toBeUndefined();
    expect(commandWord([])).toBeUndefined();
  });

  it('are found by the launcher without commander: its table of the global options is the root\'s', () => {
    const root = createRootCommand();
    expect(ROOT_OPTIONS).toEqual(root.options.map((option) => ({ long: option.long ?? null, short: option.short ?? null, takesValue: option.required })));
    expect(ROOT_OPTIONS.filter((option) => option.takesValue).map((option) => option.long)).toEqual(['--host']);
  });

  it('of the memory, answer and completion groups run from the hot bundle, with the same registrations', async () => {
    expect(Object.keys(IN_BUNDLE).sort()).toEqual([...BUNDLED_GROUPS].sort());
    for (const group of BUNDLED_GROUPS) expect(IN_BUNDLE[group], group).toBe(await HOT_GROUPS[group]());
    expect(BUNDLED_GROUPS).not.toContain('mcp');
  });

  it('run in a program with their group alone; everything else in the whole program', async () => {
    const whole = createProgram().commands.length;
    const search = await programFor(['--json', 'search', 'roadmap']);
    expect(search.commands.map((command) => command.name())).toContain('search');
    expect(search.commands.length).toBeLessThan(whole);
    expect((await programFor(['mcp'])).commands.map((command) => command.name())).toEqual(['mcp']);
    for (const args of [['help', 'search'], ['completion', 'bash'], ['serch'], ['--bogus', 'search'], ['toString'], []]) {
      expect((await programFor(args)).commands.length, args.join(' ')).toBe(whole);
    }
  });

  it('have the same options and help as in the whole program', async () => {
    const program = createProgram();
    for (const name of Object.keys(HOT_COMMANDS)) {
      const alone = find(await programFor([name]), name);
      const inWhole = find(program, name);
      expect(alone, name).toBeDefined();
      expect(helpOf(alone!), `mem ${name} --help`).toBe(helpOf(inWhole!));
      expect(alone!.options.map((option) => option.flags)).toEqual(inWhole!.options.map((option) => option.flags));
    }
  });
});
