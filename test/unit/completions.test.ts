import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argument, Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionScript, SHELLS, type Shell } from '../../src/cli/completion.js';
import { daemonValueKind, type DaemonValueKind } from '../../src/cli/completion-values.js';
import { createProgram } from '../../src/cli/program.js';

const DIR = join(import.meta.dirname, '..', '..', 'completions');
const script = (shell: Shell) => readFileSync(join(DIR, `mem.${shell}`), 'utf8');

/** Every command a user can type (hidden ones, such as `mem __complete`, are for the scripts only). */
function everyCommand(command: Command, path = ['mem']): { command: Command; path: string }[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .filter((sub) => sub.name() !== 'help')
    .flatMap((sub) => [{ command: sub, path: [...path, sub.name()].join(' ') }, ...everyCommand(sub, [...path, sub.name()])]);
}

/** Each option and argument of the program with the values the shells should complete for it. */
function valuedPositions() {
  return everyCommand(createProgram()).flatMap(({ command, path }) => [
    ...command.options.map((option: Option) => ({ path, option, argument: undefined, index: -1 })),
    ...command.registeredArguments.map((argument: Argument, index) => ({ path, option: undefined, argument, index })),
  ]);
}

const fishFlags = (option: Option) => `-l ${(option.long ?? '').replace(/^--/, '')}${option.short ? ` -s ${option.short.replace(/^-/, '')}` : ''}`;

describe('completions/', () => {
  for (const shell of SHELLS) {
    it(`mem.${shell} is what \`mem completion ${shell}\` prints (regenerate it when commands change)`, () => {
      expect(script(shell)).toBe(completionScript(createProgram(), shell));
    });

    it(`mem.${shell} names every command and option`, () => {
      const text = script(shell);
      for (const { command } of everyCommand(createProgram())) {
        expect(text, command.name()).toContain(command.name());
        // Hidden options (kept for old scripts, e.g. search --hybrid) are not offered.
        for (const option of command.options.filter((candidate) => !candidate.hidden)) {
          const long = option.long ?? '';
          expect(text, `${command.name()} ${long}`).toContain(shell === 'fish' ? `-l ${long.replace(/^--/, '')}` : long);
        }
      }
    });

    it(`mem.${shell} offers the choices of every option and argument that has them`, () => {
      const text = script(shell);
      let count = 0;
      for (const { path, option, argument, index } of valuedPositions()) {
        const choices = (option ?? argument)?.argChoices;
        if (!choices) continue;
        count++;
        const words = choices.join(' ');
        if (shell === 'fish') {
          const condition = option ? `-n "__mem_at '${path}'" ${fishFlags(option)} -x` : `-n "__mem_at '${path}' ${index}"`;
          expect(text, `${path} ${option?.long ?? index}`).toContain(`complete -c mem ${condition} -a '${words}'`);
        } else {
          const position = option ? `'${path} ${option.long}'` : `'${path} ${index}')`;
          expect(text, `${path} ${option?.long ?? index}`).toMatch(new RegExp(`${escape(position)}[^\\n]* words='${escape(words)}'`));
        }
      }
      expect(count).toBeGreaterThanOrEqual(12);
    });

    it(`mem.${shell} asks \`mem __complete\` for the values only the daemon knows`, () => {
      const text = script(shell);
      for (const { path, option, argument, index } of valuedPositions()) {
        const target = option ?? argument;
        const kind = target && daemonValueKind(target);
        if (!kind) continue;
        if (shell === 'fish') {
          const condition = option ? `-n "__mem_at '${path}'" ${fishFlags(option)} -x` : `-n "__mem_at '${path}' ${index}${argument?.variadic ? '+' : ''}"`;
          expect(text, `${path} ${option?.long ?? index}`).toContain(`complete -c mem ${condition} -a '(mem __complete --describe ${kind} -- `);
        } else {
          const position = option ? `'${path} ${option.long}'` : `'${path} ${argument?.variadic ? '' : index}'`;
          expect(text, `${path} ${option?.long ?? index}`).toMatch(new RegExp(`${escape(position)}[^\\n]*\\) _mem_daemon_values ${kind} "\\$cur"; return ;;`));
        }
      }
      if (shell !== 'fish') expect(text).toContain(`< <(mem __complete "$1" -- "$prefix" 2>/dev/null)`);
    });

    it(`mem.${shell} does not offer the hidden __complete command`, () => {
      const text = script(shell);
      if (shell === 'fish') expect(text).not.toMatch(/-a __complete\b/);
      else expect(text.match(/^ {6}'mem'\) words='([^']*)'/m)?.[1]?.split(' ')).not.toContain('__complete');
    });
  }

  it('mem --help does not list the hidden __complete command', () => {
    const program = createProgram();
    expect(program.commands.map((command) => command.name())).toContain('__complete');
    expect(program.helpInformation()).not.toContain('__complete');
  });

  it('the values issue #8 asks for complete where expected', () => {
    const expected: [path: string, flagOrIndex: string | number, values: DaemonValueKind | readonly string[]][] = [
      ['mem entities', '--type', ['person', 'company', 'product', 'concept', 'location', 'event', 'date']],
      ['mem entities', '--sort', ['mentions', 'name', 'recent']],
      ['mem facts', '--category', ['role', 'date', 'metric', 'relationship', 'attribute', 'event']],
      ['mem ask', '--model', ['default', 'fast', 'smart']],
      ['mem usage', '--period', ['day', 'week', 'month', 'all']],
      ['mem usage', '--breakdown', ['endpoint', 'day', 'key']],
      ['mem remind', '--timeframe', ['today', 'week', 'month', 'all']],
      ['mem users add', '--tier', ['free', 'pro', 'enterprise']],
      ['mem users set-tier', 1, ['free', 'pro', 'enterprise']],
      ['mem completion', 0, ['bash', 'zsh', 'fish']],
      ['mem tui', '--view', ['graph', 'memories', 'ask']],
      ['mem keys regenerate', 0, 'keys'],
      ['mem keys delete', 0, 'keys'],
      ['mem users set-tier', 0, 'users'],
      ['mem users remove', 0, 'users'],
      ['mem watch remove', 0, 'watches'],
      ['mem ingest', '--status', 'jobs'],
      ['mem get', 0, 'memories'],
      ['mem update', 0, 'memories'],
      ['mem rm', 0, 'memories'],
      ['mem enrich', 0, 'memories'],
      ['mem facts', '--entity', 'entities'],
      ['mem graph', '--entity', 'entities'],
      ['mem tui', '--entity', 'entities'],
    ];
    const positions = valuedPositions();
    for (const [path, at, values] of expected) {
      const found = positions.find((entry) => entry.path === path && (typeof at === 'number' ? entry.index === at : entry.option?.long === at));
      const target = found?.option ?? found?.argument;
      expect(target, `${path} ${at}`).toBeDefined();
      if (!target) continue;
      if (typeof values === 'string') expect(daemonValueKind(target), `${path} ${at}`).toBe(values);
      else expect(target.argChoices, `${path} ${at}`).toEqual(values);
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
