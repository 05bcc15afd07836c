import { VERSION } from '../version.js';

/**
 * The CLI entry. `mem --version` (what scripts and prompts ask most) answers before commander and the
 * command registrations load, and so does `mem --help` when stdout is not a terminal (commander would
 * print the same text, root-help.ts; on a terminal it wraps the help to the window's width); everything else
 * goes through the program.
 */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h') && !process.stdout.isTTY) {
    const { ROOT_HELP } = await import('./root-help.js');
    process.stdout.write(ROOT_HELP);
    return;
  }
  const { runProgram } = await import('./run-program.js');
  await runProgram(argv);
}
