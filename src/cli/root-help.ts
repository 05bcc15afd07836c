import { createProgram } from './program.js';

/*
 * Evaluated when the CLI is bundled (scripts/bundle-cli.mjs): the bundle holds `mem --help` as text, so that
 * the help scripts and agents read answers without loading commander and every command's registration.
 */

/** `mem --help` as commander prints it when stdout is not a terminal: 80 columns, no colour. */
export const ROOT_HELP: string = (() => {
  let text = '';
  const program = createProgram();
  program.configureOutput({ writeOut: (chunk) => (text += chunk), getOutHelpWidth: () => 80, getOutHasColors: () => false });
  program.outputHelp();
  return text;
})();
