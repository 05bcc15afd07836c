/**
 * Whether a JSON text nests deeper than `limit`, counted on the raw characters (brackets inside strings
 * skipped) and given up as soon as it passes: the parser, zod and every later walk of the value recurse, so
 * a 10,000-level body has to be refused before any of them sees it. Linear in the length, no recursion.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c /* \ */) index++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}
