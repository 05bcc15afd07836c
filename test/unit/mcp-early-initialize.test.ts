import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InitializeRequestSchema, JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { earlyInitializeAnswer, earlyInitializeId } from '../../src/mcp/early-initialize.js';
import type { MemoryApi } from '../../src/mcp/memory-api.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { serveStdio } from '../../src/mcp/stdio.js';

/**
 * `mem mcp` answers the session's `initialize` before the SDK loads (src/mcp/early-initialize.ts, stdio.ts):
 * only requests the SDK certainly accepts, with the SDK's own answer, and the session after it is the
 * SDK's, byte for byte.
 */
const api = new Proxy({}, { get: () => () => Promise.reject(new Error('not called')) }) as MemoryApi;

function initialize(params: Record<string, unknown>, id: unknown = 1): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' }, ...params } };
}

/** What the SDK's stdio server alone writes for these input lines (the reference). */
async function sdkOutput(lines: readonly string[], answers: number): Promise<string[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = createMcpServer(api);
  await server.connect(new StdioServerTransport(input, output));
  const written = collectLines(output, answers);
  input.write(lines.map((line) => `${line}\n`).join(''));
  const result = await written;
  await server.close();
  return result;
}

/** What serveStdio (the front, then the SDK) writes for the same lines. */
async function frontOutput(lines: readonly string[], answers: number, end = true): Promise<{ lines: string[]; log: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let log = '';
  const served = serveStdio(api, { input, output, log: (text) => (log += text) });
  const written = collectLines(output, answers);
  input.write(lines.map((line) => `${line}\n`).join(''));
  const result = await written;
  if (end) input.end();
  await served;
  return { lines: result, log };
}

function collectLines(stream: PassThrough, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`expected ${count} lines, got: ${text}`)), 10_000);
    const check = () => {
      const lines = text.split('\n').slice(0, -1);
      if (lines.length >= count) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(lines);
      }
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      check();
    };
    stream.on('data', onData);
    if (count === 0) check();
  });
}

describe('the early answer to initialize', () => {
  it('is the SDK server’s own line for every protocol version it supports, and for one it does not', async () => {
    for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
      const request = JSON.stringify(initialize({ protocolVersion: version }, `id-${version}`));
      const [sdk] = await sdkOutput([request], 1);
      expect(earlyInitializeAnswer(request)?.answer).toBe(`${sdk}\n`);
      expect(JSON.parse(sdk!).result.protocolVersion).toBe(version === '1999-01-01' ? LATEST_PROTOCOL_VERSION : version);
    }
  });

  it('answers what real clients send: the SDK client, and richer capabilities', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sent = new Promise<unknown>((resolve) => (serverSide.onmessage = resolve));
    await serverSide.start();
    void new Client({ name: 'sdk', version: '1.0.0' }, { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } })
      .connect(clientSide)
      .catch(() => undefined);
    const request = await sent;
    expect(earlyInitializeId(request)).toBe(0);
    expect(
      earlyInitializeId(
        initialize({
          capabilities: { roots: {}, sampling: { context: {}, tools: {} }, elicitation: { form: { applyDefaults: true }, url: {} }, tasks: { list: {}, cancel: {} }, experimental: { x: {} }, extensions: { y: {} } },
          clientInfo: { name: 'claude-code', version: '2.0.1', title: 'Claude Code', websiteUrl: 'https://example.com', description: 'agent' },
        }, 'abc'),
      ),
    ).toBe('abc');
    await clientSide.close();
  });

  it('leaves to the SDK what it might reject or read differently', () => {
    const refused: unknown[] = [
      null,
      [],
      'initialize',
      { ...initialize({}), jsonrpc: '1.0' },
      { ...initialize({}), method: 'ping' },
      { ...initialize({}), extra: true },
      initialize({}, null),
      initialize({}, 1.5),
      initialize({}, 2 ** 60),
      initialize({ protocolVersion: 20250618 }),
      initialize({ capabilities: [] }),
      initialize({ capabilities: { roots: { listChanged: 'yes' } } }),
      initialize({ capabilities: { sampling: { context: true } } }),
      initialize({ capabilities: { elicitation: [] } }),
      initialize({ capabilities: { tasks: { requests: {} } } }),
      initialize({ capabilities: { experimental: { x: 1 } } }),
      initialize({ capabilities: { somethingNew: {} } }),
      initialize({ clientInfo: { name: 'x' } }),
      initialize({ clientInfo: { name: 'x', version: 1 } }),
      initialize({ clientInfo: { name: 'x', version: '1', icons: [] } }),
      initialize({ _meta: { progressToken: 1 } }),
    ];
    for (const message of refused) expect(earlyInitializeId(message), JSON.stringify(message)).toBeUndefined();
    expect(earlyInitializeAnswer('{"jsonrpc":"2.0",')).toBeUndefined();
  });

  it('accepts only requests the SDK accepts (generated requests)', () => {
    // Mostly well-formed, with a wrong value or an extra key here and there.
    const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 3 }), fc.constant([]), fc.constant({}), fc.constant({ a: 1 }));
    const rare = <T,>(odd: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: odd, weight: 1 });
    const often = <T,>(good: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: value, weight: 1 });
    const object = <T,>(shape: Record<string, fc.Arbitrary<T>>, requiredKeys: string[] = []) =>
      fc.tuple(fc.record(shape, { requiredKeys }), rare(fc.tuple(fc.constantFrom('x', 'requests', 'form'), value))).map(([record, extra]) =>
        extra ? { ...record, [extra[0]]: extra[1] } : record,
      );
    const empty = often(fc.constant({}));
    const capabilities = object({
      roots: often(object({ listChanged: often(fc.boolean()) })),
      sampling: often(object({ context: empty, tools: empty })),
      elicitation: often(object({ form: often(object({ applyDefaults: often(fc.boolean()) })), url: empty })),
      tasks: often(object({ list: empty, cancel: empty })),
      experimental: often(fc.dictionary(fc.string({ maxLength: 2 }), empty, { maxKeys: 2 })),
      extensions: often(fc.dictionary(fc.string({ maxLength: 2 }), empty, { maxKeys: 2 })),
    });
    const text = often(fc.string({ maxLength: 3 }));
    const clientInfo = object({ name: text, version: text, title: text, websiteUrl: text, description: text, icons: rare(value) }, ['name', 'version']);
    const params = fc.record(
      { protocolVersion: often(fc.constantFrom(...SUPPORTED_PROTOCOL_VERSIONS, 'x')), capabilities: often(capabilities), clientInfo: often(clientInfo), _meta: rare(value) },
      { requiredKeys: ['protocolVersion', 'capabilities', 'clientInfo'] },
    );
    const message = fc.record(
      { jsonrpc: often(fc.constant('2.0')), id: often(fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.double())), method: often(fc.constant('initialize')), params: often(params), extra: rare(value) },
      { requiredKeys: ['jsonrpc', 'id', 'method'] },
    );
    let accepted = 0;
    fc.assert(
      fc.property(message, (candidate) => {
        // What crosses a pipe is JSON: undefined fields vanish.
        const wire: unknown = JSON.parse(JSON.stringify(candidate));
        if (earlyInitializeId(wire) === undefined) return;
        accepted++;
        expect(JSONRPCMessageSchema.safeParse(wire).success).toBe(true);
        expect(InitializeRequestSchema.safeParse(wire).success).toBe(true);
      }),
      { numRuns: 5000 },
    );
    // The property says something only if some generated requests are answered early.
    expect(accepted).toBeGreaterThan(20);
  });
});

describe('serveStdio: the session after an early answer is the SDK’s', () => {
  const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping' });

  it('writes the same lines as the SDK alone, whether the first message is answered early or not', async () => {
    const scripts: [string, string[], number][] = [
      ['answered early', [JSON.stringify(initialize({})), initialized, toolsList, ping], 3],
      ['an unsupported version', [JSON.stringify(initialize({ protocolVersion: '1999-01-01' }, 'x')), initialized, ping], 2],
      ['left to the SDK: a capability it rejects', [JSON.stringify(initialize({ capabilities: { roots: { listChanged: 'yes' } } })), ping], 2],
      ['left to the SDK: not initialize first', [ping, JSON.stringify(initialize({})), toolsList], 3],
      ['left to the SDK: not JSON first', ['{"jsonrpc":', JSON.stringify(initialize({})), ping], 2],
    ];
    for (const [name, lines, answers] of scripts) {
      const expected = await sdkOutput(lines, answers);
      const actual = await frontOutput(lines, answers);
      expect(actual.lines, name).toEqual(expected);
      expect(actual.log, name).toBe('mem MCP server ready on stdio\n');
    }
  });

  it('reads a first line split across chunks, and ends when the input ends', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveStdio(api, { input, output, log: () => undefined });
    const written = collectLines(output, 2);
    const text = `${JSON.stringify(initialize({}, 7))}\r\n${ping}\n`;
    for (const piece of [text.slice(0, 10), text.slice(10, 60), text.slice(60)]) {
      input.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const lines = await written;
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 7, result: { serverInfo: { name: 'mem' } } });
    expect(JSON.parse(lines[1]!)).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    input.end();
    await served;
  });

  it('answers an initialize followed by nothing, then exits without the SDK', async () => {
    const { lines } = await frontOutput([JSON.stringify(initialize({}, 3))], 1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 3, jsonrpc: '2.0', result: { protocolVersion: '2025-06-18' } });
    const empty = await frontOutput([], 0);
    expect(empty.lines).toEqual([]);
  });
});
