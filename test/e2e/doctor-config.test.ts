import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../src/errors.js';
import { freePort, json, mem } from '../helpers/cli.js';
import { startFakeOllama, type FakeOllama } from '../helpers/fake-ollama.js';
import { tempHome } from '../helpers/temp-home.js';

interface Entry {
  key: string;
  value: unknown;
  origin: string;
  env: string | null;
  requiresRestart: boolean;
}
interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  message: string;
  fix?: string;
}

const home = tempHome('mem-e2e-doctor-');
const configFile = join(home.dir, 'config', 'config.json');
let env: NodeJS.ProcessEnv;
// The daemon's Ollama (its models stay built in, so it only asks Ollama which models it has, for /v1/status).
let ollama: FakeOllama | null = null;

beforeAll(async () => {
  ollama = await startFakeOllama({ models: ['nomic-embed-text', 'llama3.2'] });
  env = { ...home.env, MEM_PORT: String(await freePort()), MEM_OLLAMA_HOST: ollama.url };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, started.stderr).toBe(0);
});

afterAll(async () => {
  await mem(['daemon', 'stop'], env);
  await ollama?.close();
  home.remove();
});

const fileContent = () => (existsSync(configFile) ? (JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>) : {});

describe('mem config', () => {
  it('list shows every key with its value and origin: default, file, env, flag', async () => {
    const set = await mem(['config', 'set', 'client.timeoutMs', '60000'], env);
    expect(set.exitCode, set.stderr).toBe(0);
    const withEnv = { ...env, MEM_OLLAMA_TIMEOUT_MS: '12345' };
    const list = await mem(['config', 'list', '--json', '--host', 'http://127.0.0.1:9'], withEnv);
    expect(list.exitCode, list.stderr).toBe(0);
    const { file, keys } = json<{ file: string; keys: Entry[] }>(list);
    expect(file).toBe(configFile);
    const byKey = new Map(keys.map((entry) => [entry.key, entry]));
    expect(byKey.get('client.timeoutMs')).toMatchObject({ value: 60000, origin: 'file' });
    expect(byKey.get('ollama.timeoutMs')).toMatchObject({ value: 12345, origin: 'env', env: 'MEM_OLLAMA_TIMEOUT_MS' });
    expect(byKey.get('client.url')).toMatchObject({ value: 'http://127.0.0.1:9', origin: 'flag' });
    expect(byKey.get('log.level')).toMatchObject({ value: 'info', origin: 'default', requiresRestart: true });

    const human = await mem(['config', 'list'], withEnv);
    expect(human.stdout).toMatch(/^KEY\s+VALUE\s+ORIGIN$/m);
    expect(human.stdout).toMatch(/^client\.timeoutMs\s+60000\s+file$/m);
    expect(human.stdout).toMatch(/^ollama\.timeoutMs\s+12345\s+env MEM_OLLAMA_TIMEOUT_MS$/m);
    expect(human.stdout).toMatch(/^log\.level\s+info\s+default$/m);
    await mem(['config', 'unset', 'client.timeoutMs'], env);
  });

  it('set, get and unset round-trip through the config file, keeping the other keys', async () => {
    expect((await mem(['config', 'set', 'log.level', 'debug'], env)).exitCode).toBe(0);
    const set = await mem(['config', 'set', 'client.autoStart', 'false', '--json'], env);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(json(set)).toMatchObject({ success: true, key: 'client.autoStart', value: false, file: configFile, requiresRestart: false, overriddenBy: null });
    expect(fileContent()).toEqual({ 'log.level': 'debug', 'client.autoStart': false });

    const get = await mem(['config', 'get', 'log.level'], env);
    expect(get).toMatchObject({ exitCode: 0, stdout: 'debug' });
    expect(json(await mem(['config', 'get', 'log.level', '--json'], env))).toMatchObject({ key: 'log.level', value: 'debug', origin: 'file' });

    const unset = await mem(['config', 'unset', 'log.level'], env);
    expect(unset.exitCode, unset.stderr).toBe(0);
    expect(unset.stdout).toContain('Removed log.level');
    expect(fileContent()).toEqual({ 'client.autoStart': false });
    expect(json(await mem(['config', 'get', 'log.level', '--json'], env))).toMatchObject({ value: 'info', origin: 'default' });
    await mem(['config', 'unset', 'client.autoStart'], env);
    expect(fileContent()).toEqual({});
  });

  it('says when the daemon must restart and when an environment variable overrides the value just set', async () => {
    const set = await mem(['config', 'set', 'server.port', '7999', '--json'], env);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(json(set)).toMatchObject({ value: 7999, requiresRestart: true, restartNeeded: true, overriddenBy: 'MEM_PORT' });
    const human = await mem(['config', 'set', 'server.port', '7998'], env);
    expect(human.stderr).toContain(`MEM_PORT=${env.MEM_PORT} overrides the config file`);
    expect(human.stderr).toContain('mem daemon stop && mem daemon start');
    const get = await mem(['config', 'get', 'server.port', '--json'], env);
    expect(json(get)).toMatchObject({ value: Number(env.MEM_PORT), origin: 'env' });
    expect((await mem(['config', 'unset', 'server.port'], env)).exitCode).toBe(0);
  });

  it('an invalid value exits 2 with the schema message and leaves the file alone', async () => {
    for (const [key, value, message] of [
      ['server.port', 'abc', /expected number/],
      ['server.port', '70000', /65535/],
      ['embedding.provider', 'magic', /builtin.*ollama/],
      ['client.autoStart', 'maybe', /true or false/],
    ] as const) {
      const result = await mem(['config', 'set', key, value], env);
      expect(result.exitCode, `${key}=${value}`).toBe(2);
      expect(result.stderr).toMatch(/error\[VALIDATION_ERROR\]/);
      expect(result.stderr).toMatch(message);
    }
    expect(fileContent()).toEqual({});
  });

  it('an unknown key exits 5 with a did-you-mean suggestion', async () => {
    const get = await mem(['config', 'get', 'srver.port'], env);
    expect(get.exitCode).toBe(5);
    expect(get.stderr).toContain('error[NOT_FOUND]: Unknown config key "srver.port". Did you mean server.port?');
    const bySegment = await mem(['config', 'set', 'port', '7400'], env);
    expect(bySegment.exitCode).toBe(5);
    expect(bySegment.stderr).toMatch(/Did you mean .*server\.port/);
    const unset = await mem(['config', 'unset', 'nothing.like.it', '--json'], env);
    expect(unset.exitCode).toBe(5);
    expect(json(unset)).toMatchObject({ success: false, error: 'NOT_FOUND' });
    expect(fileContent()).toEqual({});
  });
});

describe('mem doctor', () => {
  it('is all green against a running daemon: exit 0, one ✓ line per check, --json an array', async () => {
    const result = await mem(['doctor', '--json'], env);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const checks = json<Check[]>(result);
    expect(Array.isArray(checks)).toBe(true);
    expect(checks.map((entry) => entry.name)).toEqual([
      'config',
      'daemon',
      'version',
      'data-dir',
      'disk',
      'storage',
      'embedder',
      'ollama',
      'credentials',
      'api-key',
      'node',
    ]);
    for (const entry of checks) {
      expect(entry, entry.name).toMatchObject({ status: expect.stringMatching(/^(ok|warn)$/), message: expect.any(String) });
    }
    const byName = new Map(checks.map((entry) => [entry.name, entry]));
    // A nearly full disk may warn on some machines; everything else must be ok here.
    for (const name of ['daemon', 'version', 'data-dir', 'storage', 'embedder', 'ollama', 'credentials', 'api-key', 'node']) {
      expect(byName.get(name)?.status, name).toBe('ok');
    }
    expect(byName.get('daemon')?.message).toContain(`http://127.0.0.1:${env.MEM_PORT}`);
    expect(byName.get('data-dir')?.message).toContain(join(home.dir, 'data'));
    expect(byName.get('embedder')?.message).toContain('builtin/use-lite');
    expect(byName.get('credentials')?.message).toContain('mode 0600');

    const human = await mem(['doctor'], env);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^✓ daemon\s+reachable at/m);
    expect(human.stdout).toMatch(/^✓ api-key\s+accepted/m);
    expect(human.stdout).not.toContain('\u001b['); // no colour without a terminal
    expect(human.stdout).not.toContain('✗');
  });

  it('fails with exit 1 and says how to start the daemon when none answers', async () => {
    const down = { ...env, MEM_HOST: `http://127.0.0.1:${await freePort()}` };
    const result = await mem(['doctor'], down);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/^✗ daemon\s+no daemon answers at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(result.stdout).toMatch(/^\s+fix: start it with `mem daemon start`/m);
    expect(result.stdout).toMatch(/^- version/m);
    expect(result.stdout).toMatch(/checks? failed/);
    const checks = json<Check[]>(await mem(['doctor', '--json'], down));
    expect(checks.find((entry) => entry.name === 'daemon')).toMatchObject({ status: 'fail', fix: expect.stringContaining('mem daemon start') });
    expect(checks.find((entry) => entry.name === 'storage')).toMatchObject({ status: 'skip' });
  });

  it('fails when the daemon rejects the key, and when the key file is readable by others', async () => {
    const rejected = await mem(['doctor', '--json'], { ...env, MEM_API_KEY: `svc_live_${'x'.repeat(40)}` });
    expect(rejected.exitCode).toBe(1);
    expect(json<Check[]>(rejected).find((entry) => entry.name === 'api-key')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('MEM_API_KEY'),
    });

    const credentials = join(home.dir, 'config', 'credentials.json');
    chmodSync(credentials, 0o644);
    try {
      const loose = await mem(['doctor'], env);
      expect(loose.exitCode).toBe(1);
      expect(loose.stdout).toMatch(/^✗ credentials\s+.*mode 0644/m);
      expect(loose.stdout).toContain(`fix: \`chmod 600 ${credentials}\``);
    } finally {
      chmodSync(credentials, 0o600);
    }
  });
});

describe('mem doctor: Ollama', () => {
  const ollamaCheck = async (extra: NodeJS.ProcessEnv) => {
    const result = await mem(['doctor', '--json'], { ...env, ...extra });
    return { exitCode: result.exitCode, check: json<Check[]>(result).find((entry) => entry.name === 'ollama') };
  };

  it('names the configured models Ollama lacks, with the `ollama pull` that fixes it', async () => {
    // answer.provider comes from the CLI's configuration (not in /v1/status): set it for the CLI only.
    const optionalMissing = await ollamaCheck({ MEM_ANSWERER: 'ollama' });
    expect(optionalMissing.exitCode).toBe(0);
    expect(optionalMissing.check).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('llama3.2:1b'),
      fix: '`ollama pull llama3.2:1b && ollama pull llama3.1:8b` before using them',
    });

    const requiredMissing = await ollamaCheck({ MEM_ANSWERER: 'ollama', MEM_OLLAMA_CHAT_MODEL: 'mistral', MEM_EXTRACTOR: 'ollama' });
    expect(requiredMissing.exitCode).toBe(1);
    expect(requiredMissing.check).toMatchObject({ status: 'fail', fix: expect.stringMatching(/^`ollama pull mistral && /) });
    expect(requiredMissing.check?.message).toContain('mistral (ask (default))');
    expect(requiredMissing.check?.message).not.toContain('llama3.2 (extraction)');

    ollama?.models.push('llama3.2:1b', 'llama3.1:8b', 'mistral:latest');
    const allThere = await ollamaCheck({ MEM_ANSWERER: 'ollama', MEM_OLLAMA_CHAT_MODEL: 'mistral', MEM_EXTRACTOR: 'ollama' });
    expect(allThere).toMatchObject({ exitCode: 0, check: { status: 'ok', message: expect.stringContaining('mistral') } });
  });

  it('fails with how to start Ollama when a configured provider needs it and it does not answer', async () => {
    await ollama?.close();
    ollama = null;
    const down = await ollamaCheck({ MEM_EXTRACTOR: 'ollama' });
    expect(down.exitCode).toBe(1);
    expect(down.check).toMatchObject({ status: 'fail', message: expect.stringContaining('not reachable'), fix: expect.stringContaining('ollama serve') });
    // Not needed by anything: fine either way.
    expect((await ollamaCheck({})).check).toMatchObject({ status: 'ok', message: expect.stringContaining('not needed') });
  });
});

describe('mem help', () => {
  it('help exit-codes lists every error code with its HTTP status and exit code, and 0 for success', async () => {
    const result = await mem(['help', 'exit-codes'], env);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^0\s+-\s+2xx\s+Success\.$/m);
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      expect(result.stdout, code).toMatch(new RegExp(`^${row.exitCode}\\s+${code}\\s+${row.status}\\s+`, 'm'));
    }
    const asJson = json<{ exitCodes: { code: string | null; status: number | null; exitCode: number }[] }>(await mem(['help', 'exit-codes', '--json'], env));
    expect(asJson.exitCodes).toHaveLength(Object.keys(ERROR_TABLE).length + 1);
    expect(asJson.exitCodes[0]).toMatchObject({ code: null, exitCode: 0 });
  });

  it("help <command> still shows the command's help, nested commands too", async () => {
    const save = await mem(['help', 'save'], env);
    expect(save.exitCode).toBe(0);
    expect(save.stdout).toContain('Usage: mem save');
    expect(save.stdout).toContain('Examples:');
    const nested = await mem(['help', 'keys', 'create'], env);
    expect(nested.exitCode).toBe(0);
    expect(nested.stdout).toContain('Usage: mem keys create');
    const root = await mem(['help'], env);
    expect(root.exitCode).toBe(0);
    expect(root.stdout).toContain('Usage: mem [options] [command]');
    expect(root.stdout).toMatch(/help \[command\.\.\.\]\s+Help for a command, or a topic: exit-codes/);
    const unknown = await mem(['help', 'exit-code'], env);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('Did you mean exit-codes?');
  });
});
