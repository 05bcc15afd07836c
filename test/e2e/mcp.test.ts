import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem, ROOT } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * `mem mcp` as an MCP client sees it: the SDK's own Client spawns `node bin/mem.js mcp` against a real
 * daemon (and talks to the daemon's /mcp over streamable HTTP), lists the tools, calls each one, reads
 * memories as resources, and gets API failures back as tool errors.
 */
const home = tempHome('mem-mcp-');
let env: NodeJS.ProcessEnv;
let url: string;
let client: Client;
const transportErrors: Error[] = [];
let serverStderr = '';

const TOOLS = ['ask', 'delete_memory', 'get_graph', 'get_memory', 'list_entities', 'list_facts', 'remind', 'save_memory', 'search_memories', 'update_memory'];

async function call(name: string, args: Record<string, unknown>, on: Client = client): Promise<CallToolResult> {
  return (await on.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** The structured result of a call that must have succeeded (its text explains a failure). */
function ok<T = Record<string, unknown>>(result: CallToolResult): T {
  expect(result.isError ?? false, text(result)).toBe(false);
  return result.structuredContent as T;
}

async function save(content: string, extra: Record<string, unknown> = {}): Promise<string> {
  return ok<{ documentId: string }>(await call('save_memory', { content, ...extra })).documentId;
}

beforeAll(async () => {
  const port = await freePort();
  env = { ...home.env, MEM_PORT: String(port) };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, String(started.stderr)).toBe(0);
  url = `http://127.0.0.1:${port}`;

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin', 'mem.js'), 'mcp'],
    env: { ...(home.env as Record<string, string>), MEM_HOST: url },
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (serverStderr += chunk.toString()));
  // Anything on the server's stdout that is not a JSON-RPC message lands here.
  transport.onerror = (error) => transportErrors.push(error);
  client = new Client({ name: 'mem-e2e', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await mem(['daemon', 'stop'], env);
  home.remove();
});

describe('mem mcp (stdio) against a real daemon', () => {
  it('introduces itself and lists the ten tools with schemas, descriptions and hints', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'mem' });
    expect(client.getInstructions()).toContain('search_memories');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(60);
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.annotations?.title, tool.name).toBe(tool.title);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint, tool.name).toBe('boolean');
    }
    for (const name of ['search_memories', 'ask', 'remind', 'get_memory', 'list_entities', 'list_facts', 'get_graph']) {
      expect(byName.get(name)?.annotations, name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(byName.get('save_memory')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.get('update_memory')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('delete_memory')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    // The API's limits, carried into the JSON schema the agent sees.
    const search = byName.get('search_memories')?.inputSchema as { required?: string[]; properties: Record<string, Record<string, unknown>> };
    expect(search.required).toEqual(['query']);
    expect(search.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    expect(search.properties.threshold).toMatchObject({ minimum: 0, maximum: 1 });
    expect(String(search.properties.query?.description)).toMatch(/natural language/);
  });

  it('saves, searches, gets, updates and deletes a memory', async () => {
    const saved = await call('save_memory', { content: 'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap', tags: ['work', 'acme'], metadata: { source: 'mcp' } });
    const { documentId: id } = ok<{ documentId: string; data: { tags: string[] } }>(saved);
    expect(id).toMatch(/^mem_/);
    expect(text(saved)).toContain(`Saved memory ${id}`);
    await save('long note about the garden and the tomatoes on the balcony', { title: 'Garden' });

    const found = await call('search_memories', { query: 'Sarah Chen Acme roadmap meeting', threshold: 0 });
    const results = ok<{ results: { id: string }[] }>(found).results;
    expect(results[0]?.id).toBe(id);
    expect(text(found)).toMatch(new RegExp(`^2 of 2 matching memories:\\n1\\. .*\\[${id}\\] score \\d\\.\\d\\d`));
    expect(text(found)).toContain('Berlin to discuss the Q3 roadmap');
    const tagged = ok<{ results: { id: string }[] }>(await call('search_memories', { query: 'notes', threshold: 0, tags: ['acme'] }));
    expect(tagged.results.map((result) => result.id)).toEqual([id]);

    const got = await call('get_memory', { id });
    expect(ok<{ data: { content: string; metadata: unknown } }>(got).data).toMatchObject({
      content: 'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap',
      metadata: { source: 'mcp' },
    });
    expect(text(got)).toContain(`id: ${id}\n`);
    expect(text(got)).toContain('tags: ["work","acme"]');
    expect(text(got)).toMatch(/---\n\nMet Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap\n$/);

    const updated = await call('update_memory', { id, content: 'Met Sarah Chen from Acme Corp in Lisbon about the Q4 roadmap', tags: ['acme'] });
    expect(ok<{ data: { content: string; tags: string[]; updatedAt: string } }>(updated).data).toMatchObject({
      content: 'Met Sarah Chen from Acme Corp in Lisbon about the Q4 roadmap',
      tags: ['acme'],
      updatedAt: expect.any(String),
    });
    expect(text(updated)).toContain(`Updated memory ${id}.`);
    expect(ok<{ data: { content: string } }>(await call('get_memory', { id })).data.content).toContain('Lisbon');

    const deleted = await call('delete_memory', { id });
    expect(ok(deleted)).toMatchObject({ success: true, message: expect.any(String) });
    expect(text(deleted)).toContain(id);
    const gone = await call('get_memory', { id });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toBe('NOT_FOUND: Memory not found');
    expect(gone.structuredContent).toBeUndefined();
  });

  it('asks and reminds from the memories, citing them', async () => {
    const meeting = await save('Meeting Sarah Chen from Acme Corp on Thursday at 10am to review the Q3 roadmap.', { spaceId: 'answers' });
    const asked = await call('ask', { query: 'When am I meeting Sarah Chen?', spaceId: 'answers', includeContext: true });
    const answer = ok<{ answer: string; noResult: boolean; sources: { id: string }[]; context: { id: string }[]; model: string }>(asked);
    expect(answer).toMatchObject({ noResult: false, sources: [{ id: meeting }], context: [{ id: meeting }], model: 'builtin/extractive' });
    expect(answer.answer).toContain('Thursday');
    expect(text(asked)).toMatch(new RegExp(`Thursday[\\s\\S]*Sources:\\n\\[1\\] .*\\[${meeting}\\]\\nConfidence \\d\\.\\d\\d \\(builtin/extractive\\)\\.$`));

    const nothing = await call('ask', { query: 'quantum chromodynamics lattice gauge theory', spaceId: 'answers' });
    expect(ok<{ noResult: boolean }>(nothing).noResult).toBe(true);
    expect(text(nothing)).toContain("I don't have enough information in your memories to answer that.");

    const reminded = await call('remind', { context: 'Preparing the roadmap review with Sarah Chen', timeframe: 'week', threshold: 0.2 });
    expect(ok<{ reminders: { id: string }[] }>(reminded).reminders.map((reminder) => reminder.id)).toContain(meeting);
    expect(text(reminded)).toContain(`[${meeting}]`);
    expect(text(reminded)).toMatch(/Why: .*Sarah Chen/);
  });

  it('lists entities and facts and walks the knowledge graph', async () => {
    const id = await save('Sarah Chen is the CEO of Acme Corp. She met David Okafor from Globex in Berlin on 3 March 2026.');

    const people = await call('list_entities', { type: 'person' });
    const names = ok<{ entities: { name: string }[] }>(people).entities.map((entity) => entity.name);
    expect(names).toEqual(expect.arrayContaining(['Sarah Chen', 'David Okafor']));
    expect(text(people)).toMatch(/- Sarah Chen \(person\) \[ent_\S+\]: \d+ mentions?/);

    const facts = await call('list_facts', { entity: 'Sarah Chen' });
    expect(ok<{ facts: unknown[] }>(facts).facts).toContainEqual(
      expect.objectContaining({ subject: 'Sarah Chen', predicate: 'CEO_OF', object: 'Acme Corp', source: { documentId: id, excerpt: 'Sarah Chen is the CEO of Acme Corp.' } }),
    );
    expect(text(facts)).toContain(`- Sarah Chen CEO_OF Acme Corp (role, confidence 0.90, current) from ${id}: "Sarah Chen is the CEO of Acme Corp."`);

    const graph = await call('get_graph', { entity: 'Acme Corp', depth: 2 });
    expect(ok<{ nodes: { name: string }[] }>(graph).nodes.map((node) => node.name)).toEqual(expect.arrayContaining(['Acme Corp', 'Sarah Chen']));
    expect(text(graph)).toMatch(/- Sarah Chen CEO_OF Acme Corp \(strength \d\.\d\d\)/);
  });

  it('returns invalid input and API failures as tool errors, and keeps serving', async () => {
    const badId = await call('get_memory', { id: 'nope' });
    expect(badId.isError).toBe(true);
    expect(text(badId)).toMatch(/^VALIDATION_ERROR: Invalid memory id format/);
    expect(text(badId)).toContain('\nHint: ');

    const badThreshold = await call('search_memories', { query: 'x', threshold: 3 });
    expect(badThreshold.isError).toBe(true);
    expect(text(badThreshold)).toMatch(/Invalid arguments for tool search_memories[\s\S]*threshold must be between 0 and 1/);

    const deep = await call('get_graph', { depth: 4 });
    expect(deep.isError).toBe(true);
    expect(text(deep)).toContain('depth must be at most 3');

    const missing = await call('delete_memory', { id: 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe('NOT_FOUND: Memory not found');

    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
  });

  it('says how to start the daemon when none answers, instead of failing to start', async () => {
    const offline = new Client({ name: 'mem-e2e-offline', version: '1.0.0' });
    await offline.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'bin', 'mem.js'), 'mcp'],
        env: { ...(home.env as Record<string, string>), MEM_HOST: 'http://127.0.0.1:9' },
        cwd: ROOT,
        stderr: 'pipe',
      }),
    );
    try {
      const result = await call('search_memories', { query: 'anything' }, offline);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^DAEMON_UNREACHABLE: No mem daemon is answering at http:\/\/127\.0\.0\.1:9\.\nHint: Start it with `mem daemon start`/);
    } finally {
      await offline.close();
    }
  });

  it('exposes memories as mem://memory/{id} resources', async () => {
    const id = await save('Resource test: the spare key is under the blue flower pot.', { title: 'Spare key', tags: ['home'] });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: 'mem://memory/{id}', name: 'memory', mimeType: 'text/markdown' }));

    const { resources } = await client.listResources();
    expect(resources[0]).toMatchObject({ uri: `mem://memory/${id}`, name: id, title: 'Spare key', mimeType: 'text/markdown' });
    expect(resources[0]?.description).toMatch(/^\d{4}-\d{2}-\d{2} \[home\]: Resource test: the spare key/);

    const read = await client.readResource({ uri: `mem://memory/${id}` });
    expect(read.contents).toEqual([
      {
        uri: `mem://memory/${id}`,
        mimeType: 'text/markdown',
        text: expect.stringMatching(new RegExp(`^---\\nid: ${id}\\ntitle: "Spare key"\\ntags: \\["home"\\][\\s\\S]*---\\n\\nResource test: the spare key is under the blue flower pot\\.\\n$`)),
      },
    ]);
    await expect(client.readResource({ uri: 'mem://memory/mem_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).rejects.toThrow(/NOT_FOUND: Memory not found/);
  });

  it('writes only JSON-RPC on stdout, logs on stderr, and exits when stdin closes', async () => {
    expect(transportErrors).toEqual([]);
    expect(serverStderr).toContain('mem MCP server ready on stdio');
    const closed = await mem(['mcp'], { ...home.env, MEM_HOST: url }, { input: '', timeout: 20_000 });
    expect(closed.exitCode, closed.stderr).toBe(0);
    expect(closed.stdout).toBe('');
  });
});

describe('POST /mcp on the daemon (streamable HTTP)', () => {
  const connect = async (key: string) => {
    const http = new Client({ name: 'mem-e2e-http', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    return http;
  };

  it('serves the same tools and resources with the caller key', async () => {
    const key = (await mem(['token'], env)).stdout.trim();
    expect(key).toMatch(/^svc_live_/);
    const http = await connect(key);
    try {
      expect((await http.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      const saved = ok<{ documentId: string }>(await call('save_memory', { content: 'Saved over HTTP MCP: the wifi password is on the fridge.' }, http));
      const found = ok<{ results: { id: string }[] }>(await call('search_memories', { query: 'wifi password fridge', threshold: 0 }, http));
      expect(found.results[0]?.id).toBe(saved.documentId);
      const read = await http.readResource({ uri: `mem://memory/${saved.documentId}` });
      expect(read.contents[0]).toMatchObject({ text: expect.stringContaining('the wifi password is on the fridge') });
      const missing = await call('get_memory', { id: 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, http);
      expect(missing.isError).toBe(true);
      expect(text(missing)).toBe('NOT_FOUND: Memory not found');
    } finally {
      await http.close();
    }
  });

  it('applies the key: read-only keys cannot save, and no key is a 401', async () => {
    const created = await mem(['keys', 'create', '--name', 'mcp-ro', '--read-only', '--json'], env);
    expect(created.exitCode, created.stderr).toBe(0);
    const readOnly = await connect(json<{ key: string }>(created).key);
    try {
      expect((await call('search_memories', { query: 'wifi', threshold: 0 }, readOnly)).isError ?? false).toBe(false);
      const refused = await call('save_memory', { content: 'should not be saved' }, readOnly);
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^FORBIDDEN: This API key is read-only/);
    } finally {
      await readOnly.close();
    }

    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } };
    const anonymous = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
    const wrongKey = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer svc_live_wrong' },
      body: JSON.stringify(initialize),
    });
    expect(wrongKey.status).toBe(401);
    await expect(connect('svc_live_wrong')).rejects.toThrow(/401|Unauthorized|Invalid API key/i);
  });
});
