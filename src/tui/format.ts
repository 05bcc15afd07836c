/** Small text helpers for fixed-width terminal cells (the TUI does not depend on the CLI's output module). */

/** One line of at most `width` characters: whitespace collapsed, an ellipsis where it was cut. */
export function truncate(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (width <= 0) return '';
  const chars = Array.from(flat);
  return chars.length <= width ? flat : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** `text` cut or padded with spaces to exactly `width` characters. */
export function cell(text: string, width: number): string {
  const cut = truncate(text, width);
  return cut + ' '.repeat(Math.max(0, width - Array.from(cut).length));
}

/** A bar of `cells` characters, filled in proportion to a 0-1 strength, and the value: `█████░░░ 0.62`. */
export function strengthBar(strength: number, cells = 8): string {
  const value = Math.min(1, Math.max(0, strength));
  const filled = Math.round(value * cells);
  return `${'█'.repeat(filled)}${'░'.repeat(cells - filled)} ${value.toFixed(2)}`;
}

/** The date part of an ISO timestamp (the TUI shows days, not instants). */
export function shortDate(iso: string): string {
  return iso.slice(0, 10);
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The first index of a `height`-row window over `count` rows that keeps `selected` in view (centred when it can). */
export function windowStart(count: number, selected: number, height: number): number {
  if (height <= 0 || count <= height) return 0;
  return Math.min(Math.max(0, selected - Math.floor(height / 2)), count - height);
}
