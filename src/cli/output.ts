import { MemError } from '../errors.js';

/**
 * How the CLI talks: results on stdout, messages and errors on stderr; colour only on a TTY and never
 * with NO_COLOR (or TERM=dumb); `--json` prints exactly one JSON document on stdout.
 */
export interface OutputOptions {
  readonly json: boolean;
  readonly quiet: boolean;
}

const useColor = (stream: NodeJS.WriteStream) =>
  Boolean(stream.isTTY) && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb';

function paint(code: string, stream: NodeJS.WriteStream) {
  return (text: string) => (useColor(stream) ? `\u001b[${code}m${text}\u001b[0m` : text);
}

/** Whether results printed on stdout may carry colour. */
export function colorOnStdout(): boolean {
  return useColor(process.stdout);
}

export const style = {
  bold: paint('1', process.stdout),
  dim: paint('2', process.stdout),
  green: paint('32', process.stdout),
  yellow: paint('33', process.stdout),
  cyan: paint('36', process.stdout),
  red: paint('31', process.stderr),
};

export class Output {
  constructor(readonly options: OutputOptions) {}

  get json(): boolean {
    return this.options.json;
  }

  /** A JSON result (with --json) or the human rendering. */
  result(value: unknown, human: () => string): void {
    if (this.options.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else {
      const text = human();
      if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
  }

  /** A status message on stderr (suppressed by --quiet and --json). */
  info(message: string): void {
    if (!this.options.quiet && !this.options.json) process.stderr.write(`${message}\n`);
  }
}

export function printError(error: unknown, json: boolean): number {
  const memError =
    error instanceof MemError
      ? error
      : new MemError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
  if (json) {
    process.stdout.write(`${JSON.stringify(memError.toBody(), null, 2)}\n`);
  } else {
    process.stderr.write(`${paint('31;1', process.stderr)(`error[${memError.code}]`)}: ${memError.message}\n`);
    if (memError.hint) process.stderr.write(`${paint('2', process.stderr)('hint')}: ${memError.hint}\n`);
  }
  return memError.exitCode;
}

export function truncate(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, Math.max(0, width - 1))}…`;
}

const MARK_START = '\u0001';
const MARK_END = '\u0002';

/**
 * `truncate` with the character ranges [start, end) of `text` shown bold yellow (the query's words in a
 * search result). The marks are placed before whitespace is folded, so the ranges stay on their words.
 */
export function highlighted(text: string, ranges: readonly (readonly [number, number])[], width: number): string {
  if (ranges.length === 0 || !colorOnStdout()) return truncate(text, width);
  let marked = text;
  for (const [start, end] of [...ranges].sort((a, b) => b[0] - a[0])) {
    if (start < 0 || end > text.length || start >= end) continue;
    marked = `${marked.slice(0, start)}${MARK_START}${marked.slice(start, end)}${MARK_END}${marked.slice(end)}`;
  }
  const marks = (marked.match(/[\u0001\u0002]/g) ?? []).length;
  let cut = truncate(marked, width + marks);
  if (cut.lastIndexOf(MARK_START) > cut.lastIndexOf(MARK_END)) cut += MARK_END;
  return cut.replaceAll(MARK_START, '\u001b[1;33m').replaceAll(MARK_END, '\u001b[0m');
}

/** Left-aligned columns, widths from the content; the last column is not padded. */
export function table(rows: string[][], header?: string[]): string {
  const all = header ? [header, ...rows] : rows;
  const widths: number[] = [];
  for (const row of all) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))));
  const render = (row: string[]) =>
    row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell)))).join('  ');
  const lines = rows.map(render);
  if (header) lines.unshift(style.bold(render(header)));
  return lines.join('\n');
}

function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

export function shortDate(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

export function terminalWidth(): number {
  return process.stdout.columns && process.stdout.columns > 40 ? process.stdout.columns : 100;
}
