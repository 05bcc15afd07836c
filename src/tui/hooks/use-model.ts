import { useCallback, useReducer, useRef } from 'react';

export type ModelUpdate<T> = (change: Partial<T> | ((current: T) => Partial<T>)) => void;

/**
 * A view's state that key handlers read and write synchronously. Ink hands every key of one terminal read
 * (a paste, a fast typist, tmux's `send-keys Down Enter`) to the same handler in the same tick, before
 * React renders again; a handler reading useState would see the state from before the previous key and,
 * say, open the entity above the one just selected. `get()` always returns what the last key left.
 */
export function useModel<T extends object>(initial: () => T): readonly [model: T, update: ModelUpdate<T>, get: () => T] {
  const ref = useRef<T | null>(null);
  if (ref.current === null) ref.current = initial();
  const [, rendered] = useReducer((count: number) => count + 1, 0);
  const get = useCallback(() => ref.current as T, []);
  const update = useCallback<ModelUpdate<T>>((change) => {
    const current = ref.current as T;
    ref.current = { ...current, ...(typeof change === 'function' ? change(current) : change) };
    rendered();
  }, []);
  return [ref.current, update, get] as const;
}
