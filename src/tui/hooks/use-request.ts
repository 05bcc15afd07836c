import { useCallback, useEffect, useState } from 'react';
import { describeError, type ErrorInfo } from '../error-info.js';

/**
 * One request to the daemon as screen state. `data` survives a reload, a failure and a pause (idle), so a
 * view can keep showing the last answer while the next one loads, after it failed, or when it comes back.
 */
export type RequestState<T> =
  | { readonly status: 'idle'; readonly data?: T | undefined }
  | { readonly status: 'loading'; readonly data?: T | undefined; readonly since: number }
  | { readonly status: 'ok'; readonly data: T }
  | { readonly status: 'error'; readonly data?: T | undefined; readonly error: ErrorInfo };

export type Request<T> = RequestState<T> & { readonly retry: () => void };

/**
 * Runs `load` whenever `deps` change (or on retry) and tracks its outcome. An answer that arrives after the
 * deps changed again is dropped, so a slow daemon can never overwrite a newer screen with an older answer.
 * `load` undefined means nothing to ask for yet (a view not opened, an empty query).
 */
export function useRequest<T>(load: (() => Promise<T>) | undefined, deps: readonly unknown[]): Request<T> {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<RequestState<T>>({ status: 'idle' });
  const enabled = load !== undefined;

  useEffect(() => {
    if (!load) {
      setState((previous) => ({ status: 'idle', data: previous.data }));
      return;
    }
    let current = true;
    setState((previous) => ({ status: 'loading', data: previous.data, since: Date.now() }));
    load().then(
      (data) => {
        if (current) setState({ status: 'ok', data });
      },
      (error: unknown) => {
        if (current) setState((previous) => ({ status: 'error', data: previous.data, error: describeError(error) }));
      },
    );
    return () => {
      current = false;
    };
    // `load` is a fresh closure every render; deps say when it asks for something else.
  }, [enabled, attempt, ...deps]);

  const retry = useCallback(() => setAttempt((count) => count + 1), []);
  return { ...state, retry };
}
