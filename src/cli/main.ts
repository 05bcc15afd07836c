import { earlyAnswer } from './early-answer.js';

/**
 * The whole CLI: every command line. `mem --version` and `mem --help` off a terminal answer before commander
 * and the command registrations load (early-answer.ts); everything else goes through the program. The
 * installed `mem` reaches this only for what the hot path leaves to it (launch.ts, hot-main.ts).
 */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const early = await earlyAnswer(argv.slice(2));
  if (early !== undefined) {
    process.stdout.write(early);
    return;
  }
  const [{ programFor }, { runProgram }] = await Promise.all([import('./program-for.js'), import('./run-program.js')]);
  await runProgram(argv, await programFor(argv.slice(2)));
}
