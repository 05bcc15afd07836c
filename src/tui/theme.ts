/**
 * The TUI's colours by role, or none when NO_COLOR is set (https://no-color.org). Ink's colour library does
 * not read NO_COLOR itself; bold, dim, inverse and the `›` marker still show what is selected and what matters.
 */
const useColour = !('NO_COLOR' in process.env);
const colour = (name: string) => (useColour ? name : undefined);

export const theme = {
  /** Keys, the app's name, the centre entity, the focused field. */
  accent: colour('cyan'),
  /** Relationship headings. */
  heading: colour('magenta'),
  /** Entity mentions in a memory. */
  entity: colour('yellow'),
  /** Waiting for the daemon. */
  pending: colour('yellow'),
  error: colour('red'),
} as const;
