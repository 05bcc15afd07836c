import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionScript, SHELLS } from '../../src/cli/completion.js';
import { createProgram } from '../../src/cli/program.js';

const DIR = join(import.meta.dirname, '..', '..', 'completions');

function everyCommand(command: Command): Command[] {
  return command.commands.filter((sub) => sub.name() !== 'help').flatMap((sub) => [sub, ...everyCommand(sub)]);
}

describe('completions/', () => {
  for (const shell of SHELLS) {
    it(`mem.${shell} is what \`mem completion ${shell}\` prints (regenerate it when commands change)`, () => {
      const committed = readFileSync(join(DIR, `mem.${shell}`), 'utf8');
      expect(committed).toBe(completionScript(createProgram(), shell));
    });

    it(`mem.${shell} names every command and option`, () => {
      const script = readFileSync(join(DIR, `mem.${shell}`), 'utf8');
      for (const command of everyCommand(createProgram())) {
        expect(script, command.name()).toContain(command.name());
        for (const option of command.options) {
          const long = option.long ?? '';
          expect(script, `${command.name()} ${long}`).toContain(shell === 'fish' ? `-l ${long.replace(/^--/, '')}` : long);
        }
      }
    });
  }
});
