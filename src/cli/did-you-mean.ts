/**
 * "Did you mean" for names the user typed (config keys, help topics). Commander does this for commands
 * but does not export its helper. Dotted names also match on a segment, so `port` finds `server.port`.
 */
export function didYouMean(input: string, candidates: readonly string[], max = 3): string[] {
  const typed = input.toLowerCase();
  const scored = candidates
    .map((candidate) => {
      const name = candidate.toLowerCase();
      const segments = name.split('.');
      const distance = Math.min(editDistance(typed, name), ...segments.map((segment) => editDistance(typed, segment) + 1));
      const close = distance <= Math.max(1, Math.floor(typed.length / 3)) || (typed.length >= 3 && name.includes(typed));
      return { candidate, distance, close };
    })
    .filter((entry) => entry.close)
    .sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : 1));
  // Like commander: only the closest ones, so "srver.port" suggests server.port and not server.host too.
  const best = scored[0]?.distance;
  return scored.filter((entry) => entry.distance === best).slice(0, max).map((entry) => entry.candidate);
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const previous = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** " Did you mean a or b?" (with its leading space), or "" when nothing is close. */
export function suggestionText(input: string, candidates: readonly string[]): string {
  const matches = didYouMean(input, candidates);
  if (matches.length === 0) return '';
  const last = matches.at(-1) as string;
  return ` Did you mean ${matches.length === 1 ? last : `${matches.slice(0, -1).join(', ')} or ${last}`}?`;
}
