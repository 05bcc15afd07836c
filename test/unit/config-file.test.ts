import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigValue, setConfigValue, unsetConfigValue, writeConfigFile } from '../../src/config/config-file.js';
import { loadConfig } from '../../src/config/load-config.js';
import { MemError } from '../../src/errors.js';

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mem-config-file-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('parseConfigValue', () => {
  it('parses numbers and booleans from the command-line string', () => {
    expect(parseConfigValue('server.port', '7400')).toBe(7400);
    expect(parseConfigValue('client.autoStart', 'true')).toBe(true);
    expect(parseConfigValue('client.autoStart', '0')).toBe(false);
    expect(parseConfigValue('embedding.provider', 'ollama')).toBe('ollama');
  });

  it("rejects what the key's schema rejects, with the schema's message", () => {
    const bad = (key: Parameters<typeof parseConfigValue>[0], raw: string) => {
      try {
        parseConfigValue(key, raw);
      } catch (error) {
        expect(error).toBeInstanceOf(MemError);
        expect((error as MemError).code).toBe('VALIDATION_ERROR');
        return (error as MemError).message;
      }
      throw new Error(`${key}=${raw} was accepted`);
    };
    expect(bad('server.port', '70000')).toMatch(/server\.port.*65535/);
    expect(bad('server.port', 'seventy')).toMatch(/expected number/);
    expect(bad('embedding.provider', 'magic')).toMatch(/builtin.*ollama/);
    expect(bad('client.autoStart', 'yes')).toMatch(/true or false/);
    expect(bad('ollama.host', 'not a url')).toMatch(/ollama\.host/);
    expect(bad('log.level', '  ')).toMatch(/empty/);
  });
});

describe('the config file writer', () => {
  it('creates the file and its directory, and loadConfig reads back what it wrote', () => {
    const home = temp();
    const file = join(home, 'config', 'config.json');
    setConfigValue(file, 'server.port', parseConfigValue('server.port', '7400'));
    setConfigValue(file, 'client.autoStart', parseConfigValue('client.autoStart', 'true'));
    expect(read(file)).toEqual({ 'server.port': 7400, 'client.autoStart': true });
    const loaded = loadConfig({ env: { MEM_HOME: home } });
    expect(loaded.config['server.port']).toBe(7400);
    expect(loaded.origins['server.port']).toBe('file');
    expect(loaded.config['client.autoStart']).toBe(true);
  });

  it('preserves the other keys, unknown ones included, and returns the previous value', () => {
    const dir = temp();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ 'log.level': 'debug', 'some.future.key': [1, 2], 'server.port': 7000 }));
    expect(setConfigValue(file, 'server.port', 7100)).toEqual({ previous: 7000 });
    expect(read(file)).toEqual({ 'log.level': 'debug', 'some.future.key': [1, 2], 'server.port': 7100 });
    expect(setConfigValue(file, 'embedding.provider', 'ollama')).toEqual({ previous: undefined });
    expect(read(file)).toEqual({ 'log.level': 'debug', 'some.future.key': [1, 2], 'server.port': 7100, 'embedding.provider': 'ollama' });
  });

  it('unset removes only that key, and does not rewrite the file when the key is absent', () => {
    const dir = temp();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ 'log.level': 'debug', 'server.port': 7000 }));
    expect(unsetConfigValue(file, 'server.port')).toEqual({ removed: true });
    expect(read(file)).toEqual({ 'log.level': 'debug' });
    const before = statSync(file).ino;
    expect(unsetConfigValue(file, 'server.port')).toEqual({ removed: false });
    expect(statSync(file).ino).toBe(before);
    expect(unsetConfigValue(join(dir, 'missing.json'), 'server.port')).toEqual({ removed: false });
    expect(readdirSync(dir).sort()).toEqual(['config.json']);
  });

  it('replaces the file by renaming a complete temporary file over it, keeping its mode', () => {
    const dir = temp();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ 'log.level': 'debug' }));
    chmodSync(file, 0o600);
    const before = statSync(file).ino;
    setConfigValue(file, 'server.port', 7100);
    // A new inode: the old file was never truncated and rewritten in place, so no reader saw half a file.
    expect(statSync(file).ino).not.toBe(before);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(readFileSync(file, 'utf8')).toBe('{\n  "log.level": "debug",\n  "server.port": 7100\n}\n');
  });

  it('leaves no temporary file and the old content when the replacement fails', () => {
    const dir = temp();
    const target = join(dir, 'occupied');
    mkdirSync(join(target, 'inside'), { recursive: true }); // rename() cannot replace a non-empty directory
    expect(() => writeConfigFile(target, { 'server.port': 1 })).toThrow();
    expect(readdirSync(dir)).toEqual(['occupied']);
  });

  it('refuses to overwrite a file that is not a JSON object', () => {
    const dir = temp();
    const file = join(dir, 'config.json');
    writeFileSync(file, '{ broken');
    expect(() => setConfigValue(file, 'server.port', 7100)).toThrow(/not a JSON object/);
    expect(readFileSync(file, 'utf8')).toBe('{ broken');
  });
});
