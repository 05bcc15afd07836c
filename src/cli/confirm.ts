import { MemError } from '../errors.js';

/** node:readline/promises, loaded only to ask: `mem save` and `mem search` share this module and never ask. */
const readline = () => import('node:readline/promises');

/**
 * Asks before something destructive. `--yes` skips the question; without a terminal to ask on (scripts,
 * pipes) the command refuses rather than guess.
 */
export async function confirm(question: string, options: { yes?: boolean | undefined }): Promise<void> {
  if (options.yes) return;
  if (!process.stdin.isTTY) {
    throw new MemError('VALIDATION_ERROR', `${question} Refusing without --yes: there is no terminal to ask on.`, {
      hint: 'Add --yes to confirm.',
    });
  }
  const prompt = (await readline()).createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new MemError('VALIDATION_ERROR', 'Cancelled; nothing was changed.');
  } finally {
    prompt.close();
  }
}

/** Reads a secret from the terminal without echoing it, or from piped stdin. */
export async function readSecret(question: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString('utf8').trim();
  }
  const output = process.stderr;
  output.write(question);
  const prompt = (await readline()).createInterface({ input: process.stdin, output, terminal: true });
  // Swallow the echo of what is typed: readline writes through _writeToOutput.
  (prompt as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => undefined;
  try {
    return (await prompt.question('')).trim();
  } finally {
    prompt.close();
    output.write('\n');
  }
}
