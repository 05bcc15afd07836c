/**
 * The one error table of `mem`. Every failure the API or the CLI reports has a code here; the code decides
 * the HTTP status and the CLI exit code. Codes are the spec's, verbatim; the ones the spec does not name
 * (FORBIDDEN, MODEL_UNAVAILABLE, INTERNAL_ERROR, DAEMON_UNREACHABLE) are documented additions.
 */
export const ERROR_TABLE = {
  VALIDATION_ERROR: { status: 400, exitCode: 2, description: 'Missing or invalid parameters.' },
  UNAUTHORIZED: { status: 401, exitCode: 3, description: 'Missing, invalid or expired API key.' },
  FORBIDDEN: { status: 403, exitCode: 4, description: 'The key lacks the permission for this operation.' },
  NOT_FOUND: { status: 404, exitCode: 5, description: 'The resource (or route) does not exist.' },
  CONTENT_TOO_LARGE: { status: 413, exitCode: 6, description: 'Content exceeds 100 KB (or the request body limit).' },
  LIMIT_EXCEEDED: { status: 413, exitCode: 7, description: "Too many items in one request, or the plan's memory or storage limit is reached." },
  INVALID_URL: { status: 422, exitCode: 8, description: 'The URL cannot be fetched or yields no content.' },
  RATE_LIMITED: { status: 429, exitCode: 9, description: 'Rate limit exceeded; retry after Retry-After seconds.' },
  INTERNAL_ERROR: { status: 500, exitCode: 1, description: 'Unexpected failure inside the daemon.' },
  MODEL_UNAVAILABLE: {
    status: 503,
    exitCode: 10,
    description: 'The configured model (Ollama) is unreachable, missing or timed out.',
  },
  DAEMON_UNREACHABLE: { status: 503, exitCode: 11, description: 'CLI only: no daemon answered at the address.' },
} as const satisfies Record<string, { status: number; exitCode: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

export interface MemErrorOptions {
  /** Extra structured information returned in `details`. */
  readonly details?: Record<string, unknown>;
  /** Fields added at the top level of the error body (the spec's retryAfter, invalidIndices, usage). */
  readonly extra?: Record<string, unknown>;
  /** A suggestion for the person reading it (the CLI prints it as `hint:`). */
  readonly hint?: string;
  readonly cause?: unknown;
}

export class MemError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: MemErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MemError';
    this.code = code;
    this.details = options.details;
    this.extra = options.extra;
    this.hint = options.hint;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  get exitCode(): number {
    return ERROR_TABLE[this.code].exitCode;
  }

  /** The spec's error envelope. */
  toBody(): ErrorBody {
    return {
      success: false,
      error: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      ...this.extra,
    };
  }
}

export interface ErrorBody {
  success: false;
  error: string;
  message: string;
  details?: Record<string, unknown>;
  hint?: string;
  [extra: string]: unknown;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}

export function validationError(message: string, details?: Record<string, unknown>): MemError {
  return new MemError('VALIDATION_ERROR', message, details ? { details } : {});
}
