import { VERSION } from '../version.js';

/**
 * What `mem --version` (what scripts and prompts ask most) and `mem --help` off a terminal print, without
 * commander or any command's registration; undefined for every other command line. On a terminal the help
 * goes through commander, which wraps it to the window's width (root-help.ts holds the text commander prints
 * at 80 columns).
 */
export async function earlyAnswer(args: readonly string[]): Promise<string | undefined> {
  if (args.length !== 1) return undefined;
  if (args[0] === '--version' || args[0] === '-V') return `${VERSION}\n`;
  if ((args[0] === '--help' || args[0] === '-h') && !process.stdout.isTTY) return (await import('./root-help.js')).ROOT_HELP;
  return undefined;
}
