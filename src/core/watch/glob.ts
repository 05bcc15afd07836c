/**
 * Glob patterns for watched folders, compiled to regular expressions. Written here rather than taken from
 * node's path.matchesGlob (experimental on Node 20 and 22: it prints a warning) or a package (none is a
 * dependency of mem). Paths are relative to the watched directory, with `/` separators; letters match
 * regardless of case (a notes folder's `README.MD` is a Markdown file too).
 *
 *   *        any characters but `/`            ?       one character but `/`
 *   **       any number of directories (also none) when it is a whole path segment
 *   {a,b}    either alternative (may nest)      [abc]   one of the characters; [!abc] or [^abc] none of them
 *   \x       the character x itself
 */
export const DEFAULT_WATCH_GLOB = '**/*.{md,markdown,txt,text,html,htm,json,pdf}';

const MAX_GLOB_LENGTH = 500;

export class GlobError extends Error {}

export function compileGlob(glob: string): RegExp {
  if (glob.length === 0 || glob.length > MAX_GLOB_LENGTH) throw new GlobError(`A glob must have 1 to ${MAX_GLOB_LENGTH} characters.`);
  return new RegExp(`^${translate(glob.replace(/^\.\//, ''), 0, false).regex}$`, 'iu');
}

/** True when the relative path matches the glob. */
export function matchesGlob(relativePath: string, glob: string | RegExp): boolean {
  const regex = typeof glob === 'string' ? compileGlob(glob) : glob;
  return regex.test(relativePath.split('\\').join('/'));
}

/** Translates from `start` until the end (or, inside braces, until the closing `}` or a `,`). */
function translate(glob: string, start: number, inBraces: boolean): { regex: string; end: number } {
  let regex = '';
  let i = start;
  while (i < glob.length) {
    const char = glob[i] as string;
    if (inBraces && (char === ',' || char === '}')) break;
    if (char === '\\') {
      const next = glob[i + 1];
      if (next === undefined) throw new GlobError(`The glob "${glob}" ends with a lone "\\".`);
      regex += escape(next);
      i += 2;
    } else if (char === '*') {
      const atSegmentStart = i === 0 || glob[i - 1] === '/';
      if (glob[i + 1] === '*' && atSegmentStart && (glob[i + 2] === '/' || i + 2 === glob.length)) {
        // `**/` is any number of whole directories; a final `**` is anything below.
        if (glob[i + 2] === '/') {
          regex += '(?:[^/]*/)*';
          i += 3;
        } else {
          regex += '.*';
          i += 2;
        }
      } else {
        while (glob[i] === '*') i++;
        regex += '[^/]*';
      }
    } else if (char === '?') {
      regex += '[^/]';
      i++;
    } else if (char === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        regex += '\\[';
        i++;
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      regex += `[${negated ? '^/' : ''}${body.replace(/[\\\]^]/g, (c) => `\\${c}`)}]`;
      i = close + 1;
    } else if (char === '{') {
      const alternatives: string[] = [];
      let at = i + 1;
      for (;;) {
        const part = translate(glob, at, true);
        alternatives.push(part.regex);
        if (glob[part.end] === '}') {
          i = part.end + 1;
          break;
        }
        if (glob[part.end] !== ',') throw new GlobError(`Unclosed "{" in glob "${glob}".`);
        at = part.end + 1;
      }
      regex += `(?:${alternatives.join('|')})`;
    } else {
      regex += escape(char);
      i++;
    }
  }
  return { regex, end: i };
}

function escape(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char;
}
