import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { checkedValue } from '../../src/config/check-value.js';
import { CLIENT_KEYS } from '../../src/config/client-defaults.js';
import { loadClientSettings } from '../../src/config/client-settings.js';
import { loadConfig } from '../../src/config/load-config.js';
import { resolvePaths } from '../../src/config/paths.js';
import { CONFIG_KEYS, CONFIG_SCHEMA } from '../../src/config/schema.js';
import { VALUE_CHECKS } from '../../src/config/value-checks.js';
import { MemError } from '../../src/errors.js';

/**
 * The CLI's way to the daemon reads the config without zod (src/config/client-settings.ts): what it accepts
 * zod accepts with the same value, and whatever it leaves to loadConfig gets loadConfig's answer or error.
 */
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function homeWith(file: Record<string, unknown> | undefined): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'mem-client-settings-'));
  homes.push(home);
  const { configFile } = resolvePaths({ MEM_HOME: home });
  if (file) {
    mkdirSync(dirname(configFile), { recursive: true });
    writeFileSync(configFile, JSON.stringify(file));
  }
  return { MEM_HOME: home };
}

async function outcome(promise: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    return { value: await (typeof promise === 'function' ? promise() : promise) };
  } catch (error) {
    expect(error).toBeInstanceOf(MemError);
    return { error: (error as MemError).code, message: (error as MemError).message, hint: (error as MemError).hint };
  }
}

/** The client keys of loadConfig's answer (or its error), and of loadClientSettings'. */
async function both(env: NodeJS.ProcessEnv, flags: Record<string, unknown> = {}): Promise<[unknown, unknown]> {
  const pick = (loaded: unknown) => {
    const { config, paths } = loaded as { config: Record<string, unknown>; paths: unknown };
    return { config: Object.fromEntries(CLIENT_KEYS.map((key) => [key, config[key]])), paths };
  };
  const expected = await outcome(() => pick(loadConfig({ env, flags })));
  const actual = await outcome(loadClientSettings({ env, flags }).then(pick));
  return [actual, expected];
}

describe('client settings without zod', () => {
  it('reads every schema as a plain check, except the ones only zod can check', () => {
    expect(Object.keys(VALUE_CHECKS)).toEqual(CONFIG_KEYS);
    expect(CONFIG_KEYS.filter((key) => VALUE_CHECKS[key].kind === 'zod')).toEqual(['storage.options']);
    expect(VALUE_CHECKS['server.port']).toEqual({ kind: 'number', coerce: true, int: true, min: 0, minInclusive: true, max: 65535, maxInclusive: true });
    expect(VALUE_CHECKS['client.url']).toEqual({ kind: 'string', minLength: 0, url: true });
    expect(VALUE_CHECKS['client.autoStart']).toEqual({ kind: 'bool' });
  });

  it('accepts a value only when zod accepts it, with the value zod gives (generated values, every key)', () => {
    const raw = fc.oneof(
      fc.integer({ min: -70_000, max: 70_000 }),
      fc.double(),
      fc.integer({ min: -70_000, max: 70_000 }).map(String),
      fc.double().map(String),
      fc.constantFrom('', ' ', ' 12', '12 ', '0x10', '1e3', '-0', '007', 'true', 'false', '1', '0', 'yes', true, false, null, [], {}),
      fc.constantFrom('builtin', 'ollama', 'info', 'http://127.0.0.1:7373', ' http://x ', 'http://a\tb', 'nope', 'mem://x', 'http://[::1]:80/', 'http//x'),
      fc.string({ maxLength: 6 }),
      fc.webUrl(),
    );
    let accepted = 0;
    fc.assert(
      fc.property(fc.constantFrom(...CONFIG_KEYS), raw, (key, value) => {
        const checked = checkedValue(VALUE_CHECKS[key], value);
        if (!checked) return;
        accepted++;
        const parsed = CONFIG_SCHEMA[key].schema.safeParse(value);
        expect(parsed.success, `${key} ${JSON.stringify(value)}`).toBe(true);
        expect(checked.value).toEqual(parsed.data);
      }),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(500);
  });

  it('gives what loadConfig gives, or its error, for files, environments and flags', async () => {
    const cases: [Record<string, unknown> | undefined, NodeJS.ProcessEnv, Record<string, unknown>][] = [
      [undefined, {}, {}],
      [{}, {}, {}],
      [{ 'client.url': 'http://127.0.0.1:9999/', 'client.timeoutMs': '5000', 'client.autoStart': 'true', 'embedding.provider': 'ollama' }, {}, {}],
      [{ 'server.port': 7474, 'log.level': 'debug', 'unknown.key': 1 }, { MEM_CLIENT_TIMEOUT_MS: '2500', MEM_AUTO_START: '0' }, {}],
      [{ 'client.url': 'http://a:1' }, { MEM_HOST: 'http://b:2' }, { 'client.url': 'http://c:3' }],
      [{ 'client.url': 'http://a:1' }, { MEM_HOST: '' }, {}],
      // Left to zod: it reads these, or refuses them with its message.
      [{ 'client.timeoutMs': '0x10' }, {}, {}],
      [{ 'client.url': ' http://127.0.0.1:7373 ' }, {}, {}],
      [{ 'storage.options': '{"a":"b"}' }, {}, {}],
      [{ 'client.timeoutMs': -1 }, {}, {}],
      [{ 'client.autoStart': 'yes' }, {}, {}],
      [{ 'embedding.provider': 'openai' }, {}, {}],
      [{ 'client.url': null }, {}, {}],
      [{ 'ollama.host': 'not a url' }, {}, {}],
      [{}, { MEM_PORT: '99999' }, {}],
      [{}, {}, { 'client.url': 'nope' }],
    ];
    for (const [file, env, flags] of cases) {
      const [actual, expected] = await both({ ...homeWith(file), ...env }, flags);
      expect(actual, JSON.stringify([file, env, flags])).toEqual(expected);
    }
    // Some of those are errors, some values read by zod alone: the comparison covers both.
    const errors = await Promise.all(cases.map(async ([file, env, flags]) => (await both({ ...homeWith(file), ...env }, flags))[1]));
    expect(errors.filter((result) => 'error' in (result as object)).length).toBeGreaterThanOrEqual(6);
  });
});
