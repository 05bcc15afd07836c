import { MemError } from '../errors.js';

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new MemError('VALIDATION_ERROR', 'Expected text on standard input (got a terminal).', {
      hint: 'Pipe text in, e.g. `echo "note" | mem save -`.',
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  // The newline that `echo` and most editors end input with is not part of the note.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** `-` means standard input; anything else is the text itself. */
export async function textArgument(value: string | undefined, what: string): Promise<string> {
  if (value === undefined) {
    throw new MemError('VALIDATION_ERROR', `Missing ${what}.`, { hint: `Pass it as an argument, or - to read stdin.` });
  }
  return value === '-' ? readStdin() : value;
}

export function parseList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** An example of each JSON flag, for the error that says how to write it. */
const JSON_EXAMPLES: Record<string, string> = {
  '--sort': '{"createdAt":-1}',
  '--filter': '{"tags":"bills"}',
};

export function parseJsonObject(value: string | undefined, flag: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const example = JSON_EXAMPLES[flag] ?? '{"source":"email"}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new MemError('VALIDATION_ERROR', `${flag} must be a JSON object, e.g. '${example}'.`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new MemError('VALIDATION_ERROR', `${flag} must be a JSON object, e.g. '${example}'.`);
  }
  return parsed as Record<string, unknown>;
}

export function parseNumber(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isFinite(number)) throw new MemError('VALIDATION_ERROR', `${flag} must be a number (got "${value}").`);
  return number;
}
