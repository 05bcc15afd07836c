import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * The built CLI's short way to the daemon (issue 21): with nothing configured it reads the client settings
 * from the bundle's table and checks answers with the build-time checks, without zod; whatever those do not
 * pass goes through zod and the config schema exactly as before. A scripted server stands in for the
 * daemon, found through the run file as a user's shell would find it.
 */
const home = tempHome('mem-e2e-start-');
let server: Server;
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const seen: { url?: string; authorization?: string }[] = [];
const env = { ...home.env, MEM_API_KEY: 'svc_live_start' };

const RESULT = { id: 'mem_1', content: 'Met Sarah', title: 'Met Sarah', score: 0.9, tags: ['work'], createdAt: '2026-11-24T10:00:00.000Z', spaceId: '' };
const SEARCH = { success: true, results: [RESULT], pagination: { limit: 10, offset: 0, total: 1, hasMore: false } };

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ url: request.url, authorization: request.headers.authorization });
    request.resume();
    request.on('end', () => {
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mkdirSync(join(home.dir, 'state'), { recursive: true });
  // A live pid (this test's own process) makes the run file count as a running daemon's.
  writeFileSync(join(home.dir, 'state', 'daemon.json'), JSON.stringify({ pid: process.pid, url, version: '0.1.0', startedAt: new Date().toISOString() }));
});

beforeEach(() => {
  seen.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  home.remove();
});

describe('the CLI without zod on its short path', () => {
  it('finds the daemon through the run file and prints an answer its check passes as it came', async () => {
    answer = { status: 200, body: SEARCH };
    const result = await mem(['search', 'Sarah', '--json'], env);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(json(result)).toEqual(SEARCH);
    expect(seen).toEqual([{ url: '/v1/search', authorization: 'Bearer svc_live_start' }]);
  });

  it('an answer with a key this version does not know goes through zod, which leaves the key out', async () => {
    answer = { status: 200, body: { ...SEARCH, results: [{ ...RESULT, rerankedBy: 'x' }], servedBy: 'newer daemon' } };
    const result = await mem(['search', 'Sarah', '--json'], env);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(json(result)).toEqual(SEARCH);
  });

  it('an answer off the contract is the same error as before: zod says what is wrong', async () => {
    answer = { status: 200, body: { ...SEARCH, results: [{ ...RESULT, score: 'high' }] } };
    const result = await mem(['search', 'Sarah'], env);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/error\[INTERNAL_ERROR\]: Unexpected response from POST \/v1\/search: .*score/s);
    expect(result.stderr).toMatch(/hint: The CLI and the daemon may be different versions/);
    answer = { status: 200, body: { success: true, documentId: 'mem_2' } };
    const turbo = await mem(['save', '--turbo', 'hello', '--json'], env);
    expect(turbo.exitCode).toBe(1);
    expect(turbo.stdout).toMatch(/"INTERNAL_ERROR"/);
    expect(turbo.stdout).toMatch(/processingTime/);
  });

  it('a config file or a config variable is read with the config schema, its errors as before', async () => {
    answer = { status: 200, body: SEARCH };
    const timeout = await mem(['search', 'Sarah', '--json'], { ...env, MEM_CLIENT_TIMEOUT_MS: '5000' });
    expect(timeout.exitCode, timeout.stderr).toBe(0);
    const bad = await mem(['search', 'Sarah'], { ...env, MEM_CLIENT_TIMEOUT_MS: 'soon' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/error\[VALIDATION_ERROR\]: Invalid value for client\.timeoutMs from environment variable MEM_CLIENT_TIMEOUT_MS/);
    const configHome = tempHome('mem-e2e-start-config-');
    try {
      mkdirSync(join(configHome.dir, 'config'), { recursive: true });
      mkdirSync(join(configHome.dir, 'state'), { recursive: true });
      writeFileSync(join(configHome.dir, 'state', 'daemon.json'), JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, version: '0.1.0', startedAt: '' }));
      // A key the search does not need, with a value no daemon would take: every command says so, as before.
      writeFileSync(join(configHome.dir, 'config', 'config.json'), JSON.stringify({ 'embedding.workers': 99 }));
      const invalid = await mem(['search', 'Sarah'], { ...configHome.env, MEM_API_KEY: 'k' });
      expect(invalid.exitCode).toBe(2);
      expect(invalid.stderr).toMatch(/Invalid value for embedding\.workers from config file/);
      writeFileSync(join(configHome.dir, 'config', 'config.json'), '[1, 2]');
      const notObject = await mem(['search', 'Sarah'], { ...configHome.env, MEM_API_KEY: 'k' });
      expect(notObject.exitCode).toBe(2);
      expect(notObject.stderr).toMatch(/is not a JSON object/);
      writeFileSync(join(configHome.dir, 'config', 'config.json'), JSON.stringify({ 'embedding.workers': 2 }));
      const valid = await mem(['search', 'Sarah', '--json'], { ...configHome.env, MEM_API_KEY: 'k' });
      expect(valid.exitCode, valid.stderr).toBe(0);
      expect(json(valid)).toEqual(SEARCH);
    } finally {
      configHome.remove();
    }
  });

  it('a run file that is not one means no daemon there', async () => {
    const other = tempHome('mem-e2e-start-run-');
    try {
      mkdirSync(join(other.dir, 'state'), { recursive: true });
      writeFileSync(join(other.dir, 'state', 'daemon.json'), JSON.stringify({ pid: String(process.pid), url: 'http://127.0.0.1:1' }));
      // Nothing is on the default port of this home either (an unused one, through the environment).
      const result = await mem(['search', 'Sarah'], { ...other.env, MEM_API_KEY: 'k', MEM_PORT: '9' });
      expect(result.exitCode).toBe(11);
      expect(result.stderr).toMatch(/error\[DAEMON_UNREACHABLE\]: No mem daemon is answering at http:\/\/127\.0\.0\.1:9/);
    } finally {
      other.remove();
    }
  });

  it('`mem --help` printed from the bundle is what commander prints', async () => {
    const fast = await mem(['--help'], env);
    const short = await mem(['-h'], env);
    const commander = await mem(['--quiet', '--help'], env);
    expect(fast.exitCode).toBe(0);
    expect(commander.exitCode).toBe(0);
    expect(fast.stdout).toMatch(/^Usage: mem \[options\] \[command\]/);
    expect(fast.stdout).toContain('Exit codes:');
    expect(fast.stdout).toBe(commander.stdout);
    expect(short.stdout).toBe(commander.stdout);
  });
});
