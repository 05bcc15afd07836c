import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteApiKey, readApiKey, writeApiKey } from '../../src/config/credentials.js';
import { loadConfig } from '../../src/config/load-config.js';
import { resolvePaths } from '../../src/config/paths.js';

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-config-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('paths', () => {
  it('follow XDG by default', () => {
    const paths = resolvePaths({});
    expect(paths.configDir).toBe(join(homedir(), '.config', 'mem'));
    expect(paths.dataDir).toBe(join(homedir(), '.local', 'share', 'mem'));
    expect(paths.stateDir).toBe(join(homedir(), '.local', 'state', 'mem'));
    expect(paths.cacheDir).toBe(join(homedir(), '.cache', 'mem'));
    const xdg = resolvePaths({ XDG_CONFIG_HOME: '/x/c', XDG_DATA_HOME: '/x/d', XDG_STATE_HOME: '/x/s', XDG_CACHE_HOME: '/x/k' });
    expect([xdg.configDir, xdg.dataDir, xdg.stateDir, xdg.cacheDir]).toEqual(['/x/c/mem', '/x/d/mem', '/x/s/mem', '/x/k/mem']);
  });

  it('MEM_HOME puts all four under one directory', () => {
    const paths = resolvePaths({ MEM_HOME: '/tmp/x', XDG_DATA_HOME: '/ignored', XDG_CACHE_HOME: '/ignored' });
    expect([paths.configDir, paths.dataDir, paths.stateDir, paths.cacheDir]).toEqual(['/tmp/x/config', '/tmp/x/data', '/tmp/x/state', '/tmp/x/cache']);
    expect(paths.runFile).toBe('/tmp/x/state/daemon.json');
  });
});

describe('loadConfig', () => {
  it('applies default < file < env < flag and records each origin', () => {
    const home = temp();
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ 'server.port': 7000, 'log.level': 'debug', 'embedding.provider': 'ollama' }));
    const loaded = loadConfig({ env: { MEM_HOME: home, MEM_PORT: '7100', MEM_LOG_LEVEL: 'warn' }, flags: { 'server.port': '7200' } });
    expect(loaded.config['server.port']).toBe(7200);
    expect(loaded.origins['server.port']).toBe('flag');
    expect(loaded.config['log.level']).toBe('warn');
    expect(loaded.origins['log.level']).toBe('env');
    expect(loaded.config['embedding.provider']).toBe('ollama');
    expect(loaded.origins['embedding.provider']).toBe('file');
    expect(loaded.config['server.host']).toBe('127.0.0.1');
    expect(loaded.origins['server.host']).toBe('default');
    expect(loaded.storageUri).toBe(join(home, 'data', 'lancedb'));
  });

  it('names the bad key and its origin', () => {
    const home = temp();
    expect(() => loadConfig({ env: { MEM_HOME: home, MEM_PORT: 'seventy' } })).toThrow(/server\.port.*MEM_PORT/);
    expect(() => loadConfig({ env: { MEM_HOME: home, MEM_EMBEDDER: 'magic' } })).toThrow(/embedding\.provider/);
    mkdirSync(join(home, 'config'), { recursive: true });
    writeFileSync(join(home, 'config', 'config.json'), '[1,2]');
    expect(() => loadConfig({ env: { MEM_HOME: home } })).toThrow(/not a JSON object/);
  });

  it('says what to do when MEM_HOME is a file or the config file is a directory', () => {
    const home = temp();
    const file = join(home, 'notes.jsonl');
    writeFileSync(file, '{}\n');
    expect(() => loadConfig({ env: { MEM_HOME: file } })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/is a file, not a directory/), hint: expect.stringMatching(/MEM_HOME/) }));
    mkdirSync(join(home, 'config', 'config.json'), { recursive: true });
    expect(() => loadConfig({ env: { MEM_HOME: home } })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/EISDIR/) }));
  });
});

describe('credentials', () => {
  it('prefer MEM_API_KEY, else a 0600 file in a 0700 directory', async () => {
    const home = temp();
    process.env.MEM_NO_KEYCHAIN = '1';
    const paths = resolvePaths({ MEM_HOME: home });
    expect(await readApiKey(paths, {})).toBeNull();
    expect(await writeApiKey(paths, 'svc_live_abc')).toBe('file');
    expect(await readApiKey(paths, {})).toEqual({ key: 'svc_live_abc', source: 'file' });
    expect(statSync(paths.credentialsFile).mode & 0o777).toBe(0o600);
    expect(statSync(paths.configDir).mode & 0o777).toBe(0o700);
    expect(await readApiKey(paths, { MEM_API_KEY: 'svc_live_env' })).toEqual({ key: 'svc_live_env', source: 'env' });
    await deleteApiKey(paths);
    expect(await readApiKey(paths, {})).toBeNull();
  });

  it('read the file conf writes without conf, and leave a file they cannot read to conf, as before', async () => {
    const home = temp();
    process.env.MEM_NO_KEYCHAIN = '1';
    const paths = resolvePaths({ MEM_HOME: home });
    mkdirSync(paths.configDir, { recursive: true });
    writeFileSync(paths.credentialsFile, JSON.stringify({ apiKey: 'svc_live_written_elsewhere', other: 1 }));
    expect(await readApiKey(paths, {})).toEqual({ key: 'svc_live_written_elsewhere', source: 'file' });
    writeFileSync(paths.credentialsFile, JSON.stringify({ apiKey: 42 }));
    expect(await readApiKey(paths, {})).toBeNull();
    writeFileSync(paths.credentialsFile, '{"apiKey": "svc_live_tr');
    await expect(readApiKey(paths, {})).rejects.toThrow(/JSON/);
  });
});
