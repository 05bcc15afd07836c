import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { MemError } from '../errors.js';
import { VERSION } from '../version.js';
import { bareHost, checkTarget as checkNetTarget, isAllowedAddress, refusedAddressMessage, type HostLookup } from './net-policy.js';

/**
 * Delivery of the spec's one event, `ingest.completed`, to the webhook URL an ingest request named. Receivers
 * are other people's servers: the body is signed (Stripe-style, HMAC-SHA256 over `${timestamp}.${body}`, so a
 * receiver can both authenticate it and refuse replays by age), every attempt goes through the network policy
 * first (the daemon must not become a probe of the network it runs in), failures that may pass (network errors,
 * timeouts, 408, 429, 5xx) are retried with capped exponential backoff, and failures that will not pass
 * (other 4xx, redirects, refused targets) stop at once. Every attempt is reported so the job status can show it.
 */

/** The spec's body ("Events"). */
/** The spec's body (Events); `timestamp` is when the job finished, the signed X-Mem-Timestamp is per attempt. */
export type { WebhookPayload } from '../core/ingest/types.js';
import type { WebhookAttempt, WebhookPayload } from '../core/ingest/types.js';

/** One POST to the receiver, as the job status shows it. */
/** One POST to the receiver, as the job status shows it (core's WebhookAttempt). */
export type DeliveryAttempt = WebhookAttempt;

export interface WebhookPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Wait before the second attempt; doubled before each next one. */
  readonly baseDelayMs: number;
  /** No wait is longer, jitter and Retry-After included. */
  readonly maxDelayMs: number;
  /** Per attempt: connection and response headers. */
  readonly timeoutMs: number;
  /** `network.allowPrivateNetworks`: private, link-local, unique-local, CGNAT and metadata targets. */
  readonly allowPrivateNetworks: boolean;
}

/**
 * 6 attempts: the first at once, then after about 1 s, 2 s, 4 s, 8 s and 16 s (each ±20%), so a receiver has
 * about half a minute to come back; each attempt may take 10 s.
 */
export const DEFAULT_WEBHOOK_POLICY: WebhookPolicy = {
  maxAttempts: 6,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  timeoutMs: 10_000,
  allowPrivateNetworks: false,
};

/** ±20%: spreads the retries of many jobs that failed against the same receiver at the same moment. */
export const WEBHOOK_JITTER = 0.2;

export const WEBHOOK_EVENT = 'ingest.completed';

/** Header names (HTTP headers are case-insensitive; receivers in Node see them lower-cased). */
export const WEBHOOK_HEADERS = {
  event: 'X-Mem-Event',
  delivery: 'X-Mem-Delivery',
  timestamp: 'X-Mem-Timestamp',
  signature: 'X-Mem-Signature',
} as const;

const SIGNATURE_PREFIX = 'sha256=';
const SECRET_PREFIX = 'whsec_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MAX_URL_LENGTH = 2048;

/** A per-account signing secret: `whsec_` and 32 random base62 characters (about 190 bits). */
export function newWebhookSecret(): string {
  let out = SECRET_PREFIX;
  while (out.length < SECRET_PREFIX.length + 32) {
    for (const byte of randomBytes(48)) {
      // 248 = 4 * 62: bytes above it are dropped so that every character is equally likely.
      if (byte < 248 && out.length < SECRET_PREFIX.length + 32) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Hex HMAC-SHA256 of `${timestamp}.${body}` under `secret`. The header carries it as `sha256=<hex>`. */
export function signPayload(secret: string, timestamp: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export interface VerifyOptions {
  /** Refuse timestamps further than this from `now` (replay protection); no age check when absent. */
  readonly toleranceSeconds?: number;
  /** Unix seconds; default the current time. */
  readonly now?: number;
}

/**
 * Whether `signature` (the X-Mem-Signature header, `sha256=<hex>` or bare hex) is the signature of the raw
 * `body` with `timestamp` (the X-Mem-Timestamp header) under `secret`. Compared in constant time. Receivers
 * must pass the body bytes as received, not a re-serialised parse of them.
 */
export function verifySignature(
  secret: string,
  timestamp: string,
  body: string | Uint8Array,
  signature: string,
  options: VerifyOptions = {},
): boolean {
  if (options.toleranceSeconds !== undefined) {
    const sent = Number(timestamp);
    const now = options.now ?? Math.floor(Date.now() / 1000);
    if (!/^\d+$/.test(timestamp) || Math.abs(now - sent) > options.toleranceSeconds) return false;
  }
  const given = signature.startsWith(SIGNATURE_PREFIX) ? signature.slice(SIGNATURE_PREFIX.length) : signature;
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = Buffer.from(signPayload(secret, timestamp, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

export interface ValidateWebhookOptions {
  /**
   * When given, an IP-literal host is also judged by the network policy now, so that `http://10.0.0.5/` is
   * refused with the request rather than at delivery. Host names are judged at delivery (DNS may change).
   */
  readonly allowPrivateNetworks?: boolean;
}

/**
 * The synchronous check of a webhook URL when an ingest request names it: parseable, absolute, http(s), no
 * credentials. Throws MemError VALIDATION_ERROR saying which. The network policy proper (DNS) runs before each
 * delivery attempt.
 */
export function validateWebhookUrl(url: string, options: ValidateWebhookOptions = {}): void {
  const invalid = (why: string): MemError =>
    new MemError('VALIDATION_ERROR', `invalid webhook URL: ${why}`, { details: { field: 'webhook' } });
  if (typeof url !== 'string' || url.trim() === '') throw invalid('it is empty');
  if (url.length > MAX_URL_LENGTH) throw invalid(`it is longer than ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`${JSON.stringify(url)} is not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid(`scheme ${parsed.protocol} is not allowed (only http and https)`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw invalid('credentials (user:password@) are not allowed in the URL; the payload is signed instead');
  }
  if (parsed.hostname === '') throw invalid('it has no host');
  if (options.allowPrivateNetworks !== undefined) {
    const host = bareHost(parsed);
    if (isIP(host) !== 0 && !isAllowedAddress(host, { allowPrivateNetworks: options.allowPrivateNetworks })) {
      throw invalid(refusedAddressMessage(host, host, { allowPrivateNetworks: options.allowPrivateNetworks }));
    }
  }
}

/** Decides before each attempt whether the URL may be contacted; throws a MemError when it may not. */
export type WebhookTargetCheck = (url: string) => Promise<void>;

/**
 * The network-policy check (src/ingest/net-policy.ts) as a WebhookTargetCheck: http(s), no credentials, and
 * every address the host resolves to allowed (loopback yes; private ranges only with allowPrivateNetworks).
 * Refusals are MemError INVALID_URL with `details.reason`; an unresolvable host has reason `unresolvable`,
 * which deliverWebhook retries (DNS failures pass), every other reason is final.
 */
export function createWebhookTargetCheck(options: { allowPrivateNetworks: boolean; lookup?: HostLookup }): WebhookTargetCheck {
  return async (url) => {
    const verdict = await checkNetTarget(url, options);
    if (verdict.allowed) return;
    throw new MemError('INVALID_URL', `webhook target refused: ${verdict.message}`, {
      details: { reason: verdict.reason, url, ...(verdict.address ? { address: verdict.address } : {}) },
    });
  };
}

export interface DeliverOptions {
  /** The account's signing secret (newWebhookSecret). */
  readonly secret: string;
  readonly policy?: WebhookPolicy;
  /** Called after every attempt, before any wait; awaited, so a job runner can persist it first. */
  readonly onAttempt?: (attempt: DeliveryAttempt) => void | Promise<void>;
  /** Aborts the delivery (daemon shutdown): the pending attempt or wait stops and the promise rejects with the reason. */
  readonly signal?: AbortSignal;
  /** The X-Mem-Delivery id; default a new UUID. Pass the stored one when a delivery resumes after a restart. */
  readonly deliveryId?: string;
  /** Default: the network policy with `policy.allowPrivateNetworks`. */
  readonly checkTarget?: WebhookTargetCheck;
  /** Waits between attempts; injectable so tests need not wait real seconds. Must honour the signal. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly fetch?: typeof fetch;
  /** In [0, 1): the jitter draw; default Math.random. */
  readonly random?: () => number;
}

export interface DeliveryResult {
  readonly delivered: boolean;
  readonly deliveryId: string;
  readonly attempts: DeliveryAttempt[];
}

/** The wait after failed attempt `attempt` (1-based): base * 2^(attempt-1), capped, ±jitter, capped again. */
export function backoffDelay(attempt: number, policy: WebhookPolicy, random: () => number = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential * (1 + WEBHOOK_JITTER * (2 * random() - 1));
  return Math.round(Math.min(policy.maxDelayMs, Math.max(0, jittered)));
}

/**
 * Retry-After in milliseconds (delay-seconds or an HTTP date), or null when absent or unreadable.
 * https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

interface AttemptOutcome {
  readonly status: number | null;
  readonly error: string | null;
  /** Another attempt may succeed. */
  readonly retryable: boolean;
  /** The receiver's Retry-After, in ms. */
  readonly retryAfterMs: number | null;
}

// Thrown into an attempt's AbortController when its timeout passes, to tell it from the caller's abort.
class AttemptTimeout extends Error {}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> => delay(ms, undefined, signal ? { signal } : {});

/** A sleep that rejects with the signal's own reason (timers reject with a generic AbortError). */
async function waitOrAbort(sleep: NonNullable<DeliverOptions['sleep']>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  try {
    await sleep(ms, signal);
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
  signal?.throwIfAborted();
}

/**
 * POSTs `payload` to `url` until a 2xx, a final failure, or `policy.maxAttempts`. The body is serialised once
 * and the same bytes go out on every attempt, with the same X-Mem-Delivery id; X-Mem-Timestamp and
 * X-Mem-Signature are computed per attempt (the receiver's age check sees the time of sending). Resolves with
 * `delivered: false` when the receiver never accepted; rejects only when `signal` aborts (with its reason) or
 * `onAttempt` throws.
 */
export async function deliverWebhook(url: string, payload: WebhookPayload, options: DeliverOptions): Promise<DeliveryResult> {
  const policy = options.policy ?? DEFAULT_WEBHOOK_POLICY;
  const check = options.checkTarget ?? createWebhookTargetCheck({ allowPrivateNetworks: policy.allowPrivateNetworks });
  const sleep = options.sleep ?? defaultSleep;
  const doFetch = options.fetch ?? globalThis.fetch;
  const deliveryId = options.deliveryId ?? randomUUID();
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const attempts: DeliveryAttempt[] = [];

  for (let attempt = 1; attempt <= Math.max(1, policy.maxAttempts); attempt++) {
    options.signal?.throwIfAborted();
    const at = Date.now();
    const started = performance.now();
    const outcome = await attemptOnce(url, body, deliveryId, options.secret, policy, check, doFetch, options.signal);
    const record: DeliveryAttempt = {
      attempt,
      at,
      status: outcome.status,
      error: outcome.error,
      durationMs: Math.round(performance.now() - started),
    };
    attempts.push(record);
    await options.onAttempt?.(record);
    if (outcome.error === null) return { delivered: true, deliveryId, attempts };
    if (!outcome.retryable || attempt >= policy.maxAttempts) break;
    const wait =
      outcome.retryAfterMs !== null
        ? Math.min(policy.maxDelayMs, outcome.retryAfterMs)
        : backoffDelay(attempt, policy, options.random);
    await waitOrAbort(sleep, wait, options.signal);
  }
  return { delivered: false, deliveryId, attempts };
}

async function attemptOnce(
  url: string,
  body: Buffer,
  deliveryId: string,
  secret: string,
  policy: WebhookPolicy,
  check: WebhookTargetCheck,
  doFetch: typeof fetch,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  try {
    await check(url);
  } catch (error) {
    signal?.throwIfAborted();
    const reason = error instanceof MemError ? error.details?.reason : undefined;
    // A refused target stays refused; a DNS failure (or a checker that broke) may pass.
    const retryable = !(error instanceof MemError) || reason === 'unresolvable';
    return { status: null, error: messageOf(error), retryable, retryAfterMs: null };
  }

  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new AttemptTimeout()), policy.timeoutMs);
  const timestamp = String(Math.floor(Date.now() / 1000));
  try {
    const response = await doFetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': `mem/${VERSION}`,
        [WEBHOOK_HEADERS.event]: WEBHOOK_EVENT,
        [WEBHOOK_HEADERS.delivery]: deliveryId,
        [WEBHOOK_HEADERS.timestamp]: timestamp,
        [WEBHOOK_HEADERS.signature]: `${SIGNATURE_PREFIX}${signPayload(secret, timestamp, body)}`,
      },
      body,
    });
    // The receiver's body is not needed; cancelling frees the connection.
    await response.body?.cancel().catch(() => undefined);
    return classifyResponse(response);
  } catch (error) {
    signal?.throwIfAborted();
    if (controller.signal.reason instanceof AttemptTimeout) {
      return { status: null, error: `timed out after ${policy.timeoutMs} ms`, retryable: true, retryAfterMs: null };
    }
    return { status: null, error: networkMessage(error), retryable: true, retryAfterMs: null };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function classifyResponse(response: Response): AttemptOutcome {
  const status = response.status;
  if (status >= 200 && status <= 299) return { status, error: null, retryable: false, retryAfterMs: null };
  if (status >= 300 && status <= 399) {
    const location = response.headers.get('location');
    return {
      status,
      error: `HTTP ${status}: redirects are not followed${location ? ` (Location: ${location})` : ''}`,
      retryable: false,
      retryAfterMs: null,
    };
  }
  const retryable = status === 408 || status === 429 || status >= 500;
  return {
    status,
    error: `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}`,
    retryable,
    retryAfterMs: retryable ? parseRetryAfter(response.headers.get('retry-after')) : null,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** fetch() says only "fetch failed"; its cause says why (refused, reset, DNS, TLS). */
function networkMessage(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof MemError) return cause.message;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset before a response';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `could not resolve host (${code})`;
  const detail = cause instanceof Error ? cause.message : messageOf(error);
  return `request failed: ${detail}${code ? ` (${code})` : ''}`;
}
