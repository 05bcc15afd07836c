import { MemError } from '../errors.js';

/** What the TUI shows of a failure: the API's error code, its message, and the hint when there is one. */
export interface ErrorInfo {
  readonly code: string;
  readonly message: string;
  readonly hint?: string | undefined;
}

export function describeError(error: unknown): ErrorInfo {
  if (error instanceof MemError) return { code: error.code, message: error.message, hint: error.hint };
  if (error instanceof Error) return { code: 'INTERNAL_ERROR', message: error.message };
  return { code: 'INTERNAL_ERROR', message: String(error) };
}
