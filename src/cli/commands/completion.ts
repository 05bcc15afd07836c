import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import { completionScript, SHELLS, type Shell } from '../completion.js';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash, zsh or fish')
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText(
      'after',
      `
Examples:
  $ mem completion bash > ~/.local/share/bash-completion/completions/mem
  $ mem completion zsh > "\${fpath[1]}/_mem"
  $ mem completion fish > ~/.config/fish/completions/mem.fish`,
    )
    .action((shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        throw new MemError('VALIDATION_ERROR', `Unknown shell "${shell}"; choose ${SHELLS.join(', ')}.`);
      }
      process.stdout.write(completionScript(program, shell as Shell));
    });
}
