import { render } from 'ink-testing-library';
import { App, type AppProps } from '../../src/tui/App.js';

/** Key sequences as a terminal sends them. */
export const KEYS = {
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  enter: '\r',
  // Most terminals send DEL for Backspace.
  backspace: '\u007f',
  escape: '\u001b',
  tab: '\t',
  shiftTab: '\u001b[Z',
  ctrlR: '\u0012',
} as const;

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

export type Rendered = ReturnType<typeof render> & {
  /** The last frame as a reader sees it: no colour codes. */
  screen(): string;
  /** Waits until the screen satisfies `check` (a string it contains, or a predicate); fails with the screen after the deadline. */
  waitFor(check: string | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Types text one key at a time, all in the same tick (as a fast typist or a paste arrives). */
  type(text: string): void;
  press(...keys: string[]): void;
};

export function renderApp(props: AppProps): Rendered {
  const instance = render(<App {...props} />);
  // Names in highlighted text use no-break spaces (so they wrap whole); a reader sees spaces.
  const screen = () => (instance.lastFrame() ?? '').replace(ANSI, '').replace(/\u00a0/g, ' ');
  const waitFor = async (check: string | ((screen: string) => boolean), timeoutMs = 5000) => {
    const test = typeof check === 'string' ? (text: string) => text.includes(check) : check;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = screen();
      if (test(text)) return text;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${typeof check === 'string' ? JSON.stringify(check) : 'a condition'}; the screen:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const press = (...keys: string[]) => {
    for (const key of keys) instance.stdin.write(key);
  };
  const type = (text: string) => press(...Array.from(text));
  return Object.assign(instance, { screen, waitFor, type, press });
}
