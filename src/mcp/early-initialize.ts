import { INITIALIZE_RESULTS, UNSUPPORTED_VERSION_RESULT } from './initialize-answers.js';

/**
 * The first message of an MCP session is the client's `initialize`, and an agent host waits for its answer
 * before anything else. `mem mcp` answers it from the SDK's own answers taken at build time
 * (initialize-answers.ts), while the SDK (whose import builds ~200 zod schemas) loads behind it; the SDK
 * then receives the same message and everything after it (stdio.ts).
 *
 * A request is answered early only when it is certainly one the SDK accepts: the shapes here are a strict
 * subset of the SDK's InitializeRequestSchema (test/unit/mcp-early-initialize.test.ts checks that with
 * generated requests). Anything else (other capabilities, icons, `_meta`, a malformed request) is left to
 * the SDK, which answers it as it always did.
 */

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every key of `value` is one of `allowed`. */
function only(value: Json, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function recordOfObjects(value: unknown): boolean {
  return isPlainObject(value) && Object.values(value).every(isPlainObject);
}

/** Each capability a client declares, checked for what the SDK requires of it (or stricter). */
const CAPABILITIES: Readonly<Record<string, (value: unknown) => boolean>> = {
  roots: (value) => isPlainObject(value) && only(value, ['listChanged']) && optional(value.listChanged, (flag) => typeof flag === 'boolean'),
  sampling: (value) => isPlainObject(value) && only(value, ['context', 'tools']) && optional(value.context, isPlainObject) && optional(value.tools, isPlainObject),
  elicitation: (value) =>
    isPlainObject(value) &&
    only(value, ['form', 'url']) &&
    optional(value.form, (form) => isPlainObject(form) && only(form, ['applyDefaults']) && optional(form.applyDefaults, (flag) => typeof flag === 'boolean')) &&
    optional(value.url, isPlainObject),
  tasks: (value) => isPlainObject(value) && only(value, ['list', 'cancel']) && optional(value.list, isPlainObject) && optional(value.cancel, isPlainObject),
  experimental: recordOfObjects,
  extensions: recordOfObjects,
};

const CLIENT_INFO_STRINGS = ['name', 'version', 'title', 'websiteUrl', 'description'];

/** The request's id when `message` is an `initialize` this module may answer, else undefined. */
export function earlyInitializeId(message: unknown): string | number | undefined {
  if (!isPlainObject(message) || !only(message, ['jsonrpc', 'id', 'method', 'params'])) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || method !== 'initialize') return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !only(params, ['protocolVersion', 'capabilities', 'clientInfo'])) return undefined;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== 'string') return undefined;
  if (!isPlainObject(clientInfo) || !only(clientInfo, CLIENT_INFO_STRINGS)) return undefined;
  if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') return undefined;
  if (!Object.values(clientInfo).every((value) => typeof value === 'string')) return undefined;
  if (!isPlainObject(capabilities)) return undefined;
  for (const [name, value] of Object.entries(capabilities)) {
    const check = Object.hasOwn(CAPABILITIES, name) ? CAPABILITIES[name] : undefined;
    if (!check?.(value)) return undefined;
  }
  return id as string | number;
}

/**
 * The line the SDK server would write in answer to this `initialize` (its result, then `jsonrpc` and `id`,
 * as its Protocol class sends them), or undefined when the request is not one to answer early.
 */
export function earlyInitializeAnswer(line: string): { readonly id: string | number; readonly answer: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  const id = earlyInitializeId(message);
  if (id === undefined) return undefined;
  const version = ((message as Json).params as Json).protocolVersion as string;
  const result = Object.hasOwn(INITIALIZE_RESULTS, version) ? INITIALIZE_RESULTS[version] : UNSUPPORTED_VERSION_RESULT;
  return { id, answer: `${JSON.stringify({ result, jsonrpc: '2.0', id })}\n` };
}
