import { MemError } from '../errors.js';
import { VERSION } from '../version.js';
import { checkTarget, createGuardedLookup, type HostLookup, type NetPolicyOptions } from './net-policy.js';

/**
 * Fetching one URL for a save or an ingest item, with the documented limits: one deadline for the whole fetch
 * (every hop and the body), a byte cap enforced while streaming, a redirect limit, and the network policy
 * checked on every hop. Every failure is a MemError INVALID_URL whose message says which limit or failure,
 * with `details.reason` for programs.
 */

export interface FetchPolicy {
  /** Deadline for the whole fetch: connection, every redirect hop and the body. */
  readonly timeoutMs: number;
  /** Largest body accepted, in bytes, counted after content decoding (gzip, br) while it streams. */
  readonly maxBytes: number;
  /** Redirects followed; one more is an error. 0 refuses any redirect. */
  readonly maxRedirects: number;
  /** `network.allowPrivateNetworks`: private, link-local, unique-local, CGNAT and metadata targets. */
  readonly allowPrivateNetworks: boolean;
  readonly userAgent: string;
  /** DNS, injectable for tests (default: the system resolver). */
  readonly lookup?: HostLookup;
}

/** The documented defaults (README, "Saving URLs and files"). */
export const DEFAULT_FETCH_POLICY: FetchPolicy = {
  timeoutMs: 15_000,
  maxBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
  allowPrivateNetworks: false,
  userAgent: `mem/${VERSION} (local-first memory service)`,
};

export interface FetchedResource {
  /** The URL after redirects: the one the body came from. */
  readonly finalUrl: string;
  readonly status: number;
  /** The Content-Type header as sent ('' when absent). */
  readonly contentType: string;
  readonly body: Buffer;
  /** Each redirect followed, in order (the Location targets). */
  readonly redirects: readonly string[];
}

export interface FetchOptions {
  readonly signal?: AbortSignal;
  /**
   * Called with the response's Content-Type before the body is read; throw to refuse it without downloading
   * (an extractor that cannot read video need not fetch 10 MB of it).
   */
  readonly acceptContentType?: (contentType: string, url: string) => void;
}

export type FetchFailure =
  | 'invalid-url'
  | 'refused-target'
  | 'fetch-failed'
  | 'timeout'
  | 'http-status'
  | 'too-many-redirects'
  | 'too-large';

const ACCEPT =
  'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.9,application/pdf;q=0.9,*/*;q=0.1';

function fetchError(reason: FetchFailure, message: string, details: Record<string, unknown> = {}, hint?: string): MemError {
  return new MemError('INVALID_URL', message, { details: { reason, ...details }, ...(hint ? { hint } : {}) });
}

// Thrown into the request's AbortController when the deadline passes, to tell it from the caller's abort.
class DeadlineExceeded extends Error {}

/**
 * Fetches `url` under `policy`. Redirects are followed by hand (`redirect: 'manual'`) so that each hop's
 * target is checked against the network policy and counted. Non-2xx statuses are errors. The body is read
 * as a stream and the request is aborted as soon as it passes `maxBytes`. An abort of `options.signal`
 * rejects with the signal's reason, not with INVALID_URL.
 */
export async function fetchUrl(url: string, policy: FetchPolicy, options: FetchOptions = {}): Promise<FetchedResource> {
  const netOptions: NetPolicyOptions = {
    allowPrivateNetworks: policy.allowPrivateNetworks,
    ...(policy.lookup ? { lookup: policy.lookup } : {}),
  };
  const controller = new AbortController();
  const onCallerAbort = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) throw options.signal.reason;
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded()), policy.timeoutMs);
  let dispatcher: Dispatcher | undefined;
  let current = url;
  try {
    dispatcher = await createGuardedDispatcher(netOptions);
    const redirects: string[] = [];
    for (;;) {
      const verdict = await checkTarget(current, netOptions);
      if (!verdict.allowed) throw refusalError(verdict, current);
      const response = await request(verdict.url, policy, controller.signal, dispatcher);
      if (isRedirect(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const next = redirectTarget(response, verdict.url);
        if (redirects.length >= policy.maxRedirects) {
          throw fetchError('too-many-redirects', `too many redirects fetching ${url} (more than ${policy.maxRedirects})`, {
            url,
            maxRedirects: policy.maxRedirects,
          });
        }
        current = next;
        redirects.push(current);
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => undefined);
        throw fetchError('http-status', `HTTP ${response.status} from ${current}`, { url: current, status: response.status });
      }
      const contentType = response.headers.get('content-type') ?? '';
      try {
        options.acceptContentType?.(contentType, current);
      } catch (error) {
        await response.body?.cancel().catch(() => undefined);
        throw error;
      }
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > policy.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw tooLarge(current, policy.maxBytes);
      }
      const body = await readCapped(response, policy.maxBytes, current, controller);
      return { finalUrl: current, status: response.status, contentType, body, redirects };
    }
  } catch (error) {
    if (controller.signal.reason instanceof DeadlineExceeded) {
      throw fetchError('timeout', `fetching ${url} timed out after ${policy.timeoutMs} ms`, { url, timeoutMs: policy.timeoutMs });
    }
    if (options.signal?.aborted) throw options.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
    if (!controller.signal.aborted) controller.abort();
    await dispatcher?.destroy().catch(() => undefined);
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** The absolute URL a redirect points to (Locations may be relative). */
function redirectTarget(response: Response, from: URL): string {
  const location = response.headers.get('location');
  const details = { url: from.href, status: response.status };
  if (!location) throw fetchError('fetch-failed', `HTTP ${response.status} from ${from.href} without a Location header`, details);
  try {
    return new URL(location, from).href;
  } catch {
    throw fetchError('fetch-failed', `HTTP ${response.status} from ${from.href} with an invalid Location: ${location}`, details);
  }
}

function refusalError(verdict: { reason: string; message: string; address?: string }, url: string): MemError {
  if (verdict.reason === 'unresolvable') return fetchError('fetch-failed', `fetch failed for ${url}: ${verdict.message}`, { url });
  if (verdict.reason === 'invalid-url') return fetchError('invalid-url', verdict.message, { url });
  return fetchError('refused-target', verdict.message, { url, ...(verdict.address ? { address: verdict.address } : {}) });
}

function tooLarge(url: string, maxBytes: number): MemError {
  return fetchError('too-large', `response from ${url} is too large (over ${maxBytes} bytes)`, { url, maxBytes });
}

async function request(url: URL, policy: FetchPolicy, signal: AbortSignal, dispatcher: Dispatcher | undefined): Promise<Response> {
  // `dispatcher` is Node's (undici's) extension of RequestInit; ours is structurally a subset of its type.
  const init = {
    redirect: 'manual',
    signal,
    headers: { 'user-agent': policy.userAgent, accept: ACCEPT },
    ...(dispatcher ? { dispatcher } : {}),
  } as RequestInit;
  try {
    return await fetch(url, init);
  } catch (error) {
    if (signal.aborted) throw error;
    throw connectionError(error, url);
  }
}

/** fetch() says only "fetch failed"; the cause says why (DNS, refused connection, TLS, our own refusal). */
function connectionError(error: unknown, url: URL): MemError {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof MemError) return cause;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  const host = url.host;
  const why =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? `could not resolve host ${url.hostname} (${code})`
      : code === 'ECONNREFUSED'
        ? `connection refused by ${host}`
        : code === 'ECONNRESET'
          ? `connection reset by ${host}`
          : `${cause instanceof Error ? cause.message : String(error)}${code ? ` (${code})` : ''} connecting to ${host}`;
  return fetchError('fetch-failed', `fetch failed for ${url.href}: ${why}`, { url: url.href, ...(code ? { code } : {}) });
}

/** Reads the body chunk by chunk; past `maxBytes` it aborts the request instead of buffering the rest. */
async function readCapped(response: Response, maxBytes: number, url: string, controller: AbortController): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (error) {
      if (controller.signal.aborted) throw error;
      throw fetchError('fetch-failed', `fetch failed for ${url}: the body was cut off (${error instanceof Error ? error.message : String(error)})`, { url });
    }
    if (chunk.done) break;
    total += chunk.value.byteLength;
    if (total > maxBytes) {
      controller.abort();
      await reader.cancel().catch(() => undefined);
      throw tooLarge(url, maxBytes);
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks, total);
}

/** The part of undici's Dispatcher this module uses. */
interface Dispatcher {
  destroy(): Promise<void>;
}

type AgentConstructor = new (options: { connect: { lookup: ReturnType<typeof createGuardedLookup> } }) => Dispatcher;

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
let agentConstructor: AgentConstructor | undefined;

/**
 * Node bundles undici for fetch() but does not export its Agent, which is the only way to give fetch a
 * connection-time DNS lookup. The global dispatcher (registered under undici's documented cross-version
 * symbol once fetch has run) is an instance of that Agent, so its constructor is borrowed. Where it is not
 * an Agent (someone installed a proxy or mock dispatcher, or stubbed fetch), this fetch falls back to the
 * check before each hop; only a success is remembered.
 */
async function undiciAgent(): Promise<AgentConstructor | null> {
  if (agentConstructor) return agentConstructor;
  const registry = globalThis as unknown as Record<symbol, unknown>;
  try {
    // A data: URL makes Node load its undici (which registers the global dispatcher) without any I/O.
    if (registry[GLOBAL_DISPATCHER] === undefined) await (await fetch('data:,')).arrayBuffer();
  } catch {
    return null;
  }
  const dispatcher = registry[GLOBAL_DISPATCHER];
  const constructor = typeof dispatcher === 'object' && dispatcher !== null ? dispatcher.constructor : undefined;
  if (typeof constructor !== 'function' || constructor.name !== 'Agent') return null;
  agentConstructor = constructor as AgentConstructor;
  return agentConstructor;
}

/** A one-fetch dispatcher whose connections resolve through the network policy (see createGuardedLookup). */
async function createGuardedDispatcher(options: NetPolicyOptions): Promise<Dispatcher | undefined> {
  const Agent = await undiciAgent();
  return Agent ? new Agent({ connect: { lookup: createGuardedLookup(options) } }) : undefined;
}

/** Whether connections are pinned to checked addresses in this runtime (tests assert it on Node 20+). */
export async function hasGuardedConnections(): Promise<boolean> {
  return (await undiciAgent()) !== null;
}
