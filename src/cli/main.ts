import { VERSION } from '../version.js';

/**
 * The CLI entry. `mem --version` (what scripts and prompts ask most) answers before commander and the
 * command registrations load; everything else goes through the program.
 */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const { runProgram } = await import('./run-program.js');
  await runProgram(argv);
}
