import { useStdout } from 'ink';
import { useEffect, useRef, useState } from 'react';

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/** Erase the screen and home the cursor. */
const CLEAR_SCREEN = '\u001b[2J\u001b[H';

/**
 * The terminal's size, updated on resize. On a real terminal the screen is cleared first: the terminal has
 * already re-wrapped the old frame, and Ink only erases as many lines as it last wrote, so without the clear
 * pieces of the old layout would stay behind the new one.
 */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState<TerminalSize>(read);
  const shown = useRef(size);
  useEffect(() => {
    const onResize = () => {
      const next = read();
      if (next.columns === shown.current.columns && next.rows === shown.current.rows) return;
      shown.current = next;
      if (stdout.isTTY) stdout.write(CLEAR_SCREEN);
      setSize(next);
    };
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
