import { useInput, type Key } from 'ink';
import { useCallback, useLayoutEffect, useRef } from 'react';

/**
 * Ink's useInput, made safe for keys that arrive together (a paste, a fast typist, tmux's `send-keys`).
 * useInput (re)subscribes in a passive effect, which runs after the screen is drawn, so a key arriving in
 * between would reach the handler of an older render, or no handler at all when a view has just become
 * active. Here one listener is subscribed for the component's life and calls the handler of the latest
 * committed render, only while `active`.
 */
export function useKeys(handler: (input: string, key: Key) => void, active: boolean): void {
  const latest = useRef({ handler, active });
  useLayoutEffect(() => {
    latest.current = { handler, active };
  });
  const listener = useCallback((input: string, key: Key) => {
    if (latest.current.active) latest.current.handler(input, key);
  }, []);
  useInput(listener);
}
