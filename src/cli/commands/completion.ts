import type { Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion.js';
import { choiceArgument } from '../completion-values.js';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash, zsh or fish')
    .addArgument(choiceArgument('<shell>', 'the shell', SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ mem completion bash > ~/.local/share/bash-completion/completions/mem
  $ mem completion zsh > "\${fpath[1]}/_mem"
  $ mem completion fish > ~/.config/fish/completions/mem.fish`,
    )
    .action((shell: Shell) => {
      process.stdout.write(completionScript(program, shell));
    });
}
