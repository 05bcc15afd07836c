import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

const home = tempHome('mem-e2e-');
let env: NodeJS.ProcessEnv;
let port: number;

beforeAll(async () => {
  port = await freePort();
  env = { ...home.env, MEM_PORT: String(port) };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, String(started.stderr)).toBe(0);
  expect(json(started)).toMatchObject({ success: true, url: `http://127.0.0.1:${port}`, pid: expect.any(Number) });
});

afterAll(async () => {
  await mem(['daemon', 'stop'], env);
  home.remove();
});

describe('mem CLI against a real daemon', () => {
  it('a second daemon on the same data directory refuses to start, and exits', async () => {
    const second = await mem(['serve', '--port', String(await freePort())], env, { timeout: 30_000 });
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toMatch(/already running/);
  });

  it('daemon status reports the running daemon', async () => {
    const result = await mem(['daemon', 'status', '--json'], env);
    expect(result.exitCode).toBe(0);
    expect(json(result)).toMatchObject({
      running: true,
      address: `http://127.0.0.1:${port}`,
      memoryCount: expect.any(Number),
      models: { embedding: { provider: 'builtin' } },
      ollama: { reachable: expect.any(Boolean) },
    });
    const human = await mem(['status'], env);
    expect(human.stdout).toMatch(/running/);
    expect(human.stdout).toMatch(/builtin\/use-lite/);
  });

  it('save, search, ls, get, update and rm work end to end', async () => {
    const saved = await mem(['save', 'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap', '--tags', 'work,acme', '--json'], env);
    expect(saved.exitCode, String(saved.stderr)).toBe(0);
    const id = json<{ documentId: string }>(saved).documentId;
    expect(id).toMatch(/^mem_/);

    const piped = await mem(['save', '-', '--title', 'From stdin', '--json'], env, { input: 'long note about the garden and tomatoes\n' });
    expect(piped.exitCode, String(piped.stderr)).toBe(0);
    const pipedId = json<{ documentId: string }>(piped).documentId;

    const search = await mem(['search', 'Sarah Chen Acme roadmap meeting', '--json', '--threshold', '0'], env);
    expect(search.exitCode).toBe(0);
    expect(json<{ results: { id: string }[] }>(search).results[0]?.id).toBe(id);
    const human = await mem(['search', 'Sarah Chen Acme roadmap meeting', '--threshold', '0'], env);
    expect(human.stdout).toContain(id);
    // Nothing at the threshold: the nearest memories instead, never more than --limit.
    const nearest = await mem(['search', 'Sarah Chen Acme roadmap meeting', '--threshold', '0.9999', '--limit', '1'], env);
    expect(nearest.exitCode).toBe(0);
    expect(nearest.stdout).toContain('Nearest');
    expect(nearest.stdout.match(/mem_[0-9A-Z]{26}/g)).toEqual([id]);

    // A reply saved with the message it answers: found through it, shown with it, not part of its content.
    const reply = await mem(['save', 'Three times a week, before work.', '--context', 'How often do you go to the gym?', '--author', 'Melanie', '--space', 'chat', '--json'], env);
    expect(reply.exitCode, String(reply.stderr)).toBe(0);
    const replyId = json<{ documentId: string }>(reply).documentId;
    const found = await mem(['search', 'how often do you go to the gym', '--space', 'chat', '--threshold', '0', '--json'], env);
    expect(json<{ results: { id: string; content: string }[] }>(found).results[0]).toMatchObject({ id: replyId, content: 'Three times a week, before work.' });
    const shown = await mem(['get', replyId], env);
    expect(shown.stdout).toContain('context: How often do you go to the gym?');
    expect(shown.stdout).toContain('by Melanie');
    const byAuthor = await mem(['search', 'how often do you go to the gym', '--space', 'chat', '--threshold', '0'], env);
    expect(byAuthor.stdout).toContain('Melanie: Three times a week');
    const unattributed = await mem(['update', replyId, '--author', '', '--json'], env);
    expect(json<{ data: Record<string, unknown> }>(unattributed).data).not.toHaveProperty('author');
    const urlWithContext = await mem(['save', 'https://example.org/page', '--context', 'x'], env);
    expect(urlWithContext.exitCode).toBe(2);
    expect(urlWithContext.stderr).toContain('--context applies to text saves');

    const ls = await mem(['ls', '--tags', 'acme', '--json'], env);
    expect(json<{ data: { id: string }[] }>(ls).data.map((memory) => memory.id)).toEqual([id]);
    const lsHuman = await mem(['ls'], env);
    expect(lsHuman.stdout).toContain('From stdin');

    const get = await mem(['get', pipedId, '--json'], env);
    expect(json<{ data: { content: string; title: string } }>(get).data).toMatchObject({ content: 'long note about the garden and tomatoes', title: 'From stdin' });

    const update = await mem(['update', pipedId, '--tags', 'garden', '--content', '-', '--json'], env, { input: 'tomatoes and basil in the garden' });
    expect(update.exitCode, String(update.stderr)).toBe(0);
    expect(json<{ data: { tags: string[]; content: string; updatedAt: string } }>(update).data).toMatchObject({
      tags: ['garden'],
      content: 'tomatoes and basil in the garden',
      updatedAt: expect.any(String),
    });

    const rm = await mem(['rm', pipedId, '--yes'], env);
    expect(rm.exitCode).toBe(0);
    expect(rm.stdout).toContain('Deleted');
    const after = await mem(['get', pipedId], env);
    expect(after.exitCode).toBe(5);
    expect(after.stderr).toContain('error[NOT_FOUND]: Memory not found');

    const other = json<{ documentId: string }>(await mem(['save', 'one more', '--json'], env)).documentId;
    const bulk = await mem(['rm', '--ids', `${id},${other},mem_01ARZ3NDEKTSV4RRFFQ69G5FAV`, '--json', '--yes'], env);
    expect(json(bulk)).toMatchObject({ deleted: 2, failed: [{ id: 'mem_01ARZ3NDEKTSV4RRFFQ69G5FAV', error: 'Memory not found' }] });
    expect(bulk.exitCode).toBe(5);
  });

  it('query filters, sorts, projects and aggregates with --json and a human table', async () => {
    const save = async (content: string, tags: string, metadata: string) =>
      json<{ documentId: string }>(await mem(['save', content, '--tags', tags, '-m', metadata, '--space', 'q', '--json'], env)).documentId;
    const roadmap = await save('Q3 roadmap review with the Acme team', 'acme,work', '{"status":"todo","priority":3}');
    const invoice = await save('Acme invoice 4471 is due on Friday', 'acme,finance', '{"status":"done","priority":2}');
    const garden = await save('Plant the tomatoes in the garden', 'home', '{"status":"todo","priority":1}');

    const filtered = await mem(
      ['query', '--filter', '{"$and":[{"spaceId":"q"},{"tags":{"$in":["acme"]}},{"metadata.status":{"$ne":"done"}}]}', '--sort', '{"createdAt":-1}', '--fields', 'id,title,tags', '--json'],
      env,
    );
    expect(filtered.exitCode, filtered.stderr).toBe(0);
    expect(json(filtered)).toEqual({
      success: true,
      results: [{ id: roadmap, title: 'Q3 roadmap review with the Acme team', tags: ['acme', 'work'] }],
      pagination: { limit: 20, offset: 0, total: 1, hasMore: false },
    });

    const aggregated = await mem(
      ['query', '--filter', '{"spaceId":"q","metadata.priority":{"$gte":2}}', '--sort', '{"metadata.priority":1}', '--fields', 'title', '--count-by-tag', '--histogram', 'createdAt:week', '--json'],
      env,
    );
    expect(aggregated.exitCode, aggregated.stderr).toBe(0);
    const body = json<{ results: { id: string }[]; aggregations: { countByTag: Record<string, number>; dateHistogram: { date: string; count: number }[] } }>(aggregated);
    expect(body.results.map((result) => result.id)).toEqual([invoice, roadmap]);
    expect(body.aggregations.countByTag).toEqual({ acme: 2, finance: 1, work: 1 });
    for (const bucket of body.aggregations.dateHistogram) expect(bucket.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(body.aggregations.dateHistogram.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(2);

    const ranked = await mem(['query', 'tomatoes in the garden', '--filter', '{"spaceId":"q"}', '--threshold', '0', '--json'], env);
    const rankedBody = json<{ results: { id: string; score: number }[] }>(ranked);
    expect(rankedBody.results[0]).toMatchObject({ id: garden, score: expect.any(Number) });

    const human = await mem(['query', '--filter', '{"spaceId":"q"}', '--fields', 'title,tags', '--count-by-tag'], env);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/ID\s+TITLE\s+TAGS/);
    expect(human.stdout).toContain('Plant the tomatoes in the garden');
    expect(human.stdout).toContain('1-3 of 3');
    expect(human.stdout).toMatch(/acme\s+2\s+█+/);

    const bad = await mem(['query', '--filter', '{"metadata.status":{"$foo":1}}'], env);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('error[VALIDATION_ERROR]: filters.metadata.status: unknown operator $foo');
    const badJson = await mem(['query', '--filter', '{"colour":"red"}', '--json'], env);
    expect(badJson.exitCode).toBe(2);
    expect(json(badJson)).toMatchObject({ success: false, error: 'VALIDATION_ERROR', message: expect.stringMatching(/^filters\.colour: unknown field/) });
    const badHistogram = await mem(['query', '--histogram', 'createdAt:fortnight'], env);
    expect(badHistogram.exitCode).toBe(2);
    expect(badHistogram.stderr).toContain('--histogram');
  });

  it('errors go to stderr as error[CODE] with a hint and a documented exit code', async () => {
    const bad = await mem(['get', 'nope'], env);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('error[VALIDATION_ERROR]: Invalid memory id format');
    expect(bad.stderr).toContain('hint:');

    const badJson = await mem(['get', 'nope', '--json'], env);
    expect(json(badJson)).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });

    const threshold = await mem(['search', 'x', '--threshold', '3'], env);
    expect(threshold.exitCode).toBe(2);
    expect(threshold.stderr).toMatch(/threshold/);

    const unknown = await mem(['serach', 'x'], env);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/Did you mean search/i);

    const noDaemon = await mem(['ls'], { ...env, MEM_HOST: 'http://127.0.0.1:9' });
    expect(noDaemon.exitCode).toBe(11);
    expect(noDaemon.stderr).toContain('error[DAEMON_UNREACHABLE]');
    expect(noDaemon.stderr).toContain('mem daemon start');

    const wrongKey = await mem(['ls'], { ...env, MEM_API_KEY: 'svc_live_wrong' });
    expect(wrongKey.exitCode).toBe(3);
    expect(wrongKey.stderr).toContain('error[UNAUTHORIZED]: Invalid API key provided');
  });

  it('keys and token: a created key works with curl-style HTTP', async () => {
    const token = await mem(['token'], env);
    expect(token.stdout.trim()).toMatch(/^svc_live_/);
    const created = await mem(['keys', 'create', '--name', 'e2e', '--test', '--json'], env);
    const key = json<{ id: string; key: string; type: string }>(created);
    expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^svc_test_/), type: 'test' });
    const response = await fetch(`http://127.0.0.1:${port}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'roadmap' }),
    });
    expect(response.status).toBe(200);
    const list = await mem(['keys', 'list'], env);
    expect(list.stdout).toContain('e2e');
    expect(list.stdout).not.toContain(key.key);
  });

  it('every command has --help with an example', async () => {
    for (const args of [[], ['save'], ['search'], ['query'], ['ls'], ['get'], ['update'], ['rm'], ['daemon'], ['daemon', 'start'], ['daemon', 'logs'], ['keys'], ['keys', 'create'], ['token'], ['reindex'], ['serve']]) {
      const result = await mem([...args, '--help'], env);
      expect(result.exitCode, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/Examples:\n\s+\$ \S/);
    }
  });

  it('a 200 means the memory survives kill -9 of the daemon', async () => {
    const saved = json<{ documentId: string }>(await mem(['save', 'durable note written just before a crash', '--json'], env));
    const run = JSON.parse(readFileSync(`${home.dir}/state/daemon.json`, 'utf8')) as { pid: number };
    process.kill(run.pid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      try {
        process.kill(run.pid, 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      } catch {
        break;
      }
    }
    const restarted = await mem(['daemon', 'start', '--json'], env);
    expect(restarted.exitCode, String(restarted.stderr)).toBe(0);
    expect(json<{ pid: number }>(restarted).pid).not.toBe(run.pid);
    const get = await mem(['get', saved.documentId, '--json'], env);
    expect(json<{ data: { content: string } }>(get).data.content).toBe('durable note written just before a crash');
    const search = await mem(['search', 'durable note before a crash', '--threshold', '0', '--json'], env);
    expect(json<{ results: { id: string }[] }>(search).results.map((r) => r.id)).toContain(saved.documentId);
  });

  it('ask streams the answer and lists its sources; remind, save --turbo and ask --turbo work', async () => {
    const meeting = json<{ documentId: string }>(
      await mem(['save', 'Meeting Sarah Chen from Acme Corp on Thursday at 10am to review the Q3 roadmap.', '--space', 'answers', '--json'], env),
    ).documentId;
    const streamed = await mem(['ask', 'When am I meeting Sarah Chen and what about?', '--space', 'answers'], env);
    expect(streamed.exitCode, streamed.stderr).toBe(0);
    expect(streamed.stdout).toMatch(/^Thursday \d{1,2} [A-Z][a-z]+ \d{4} — Meeting Sarah Chen from Acme Corp on Thursday at 10am to review the Q3 roadmap\.\n\nSources\n {2}\[1\] .*mem_/);
    expect(streamed.stdout).toContain(meeting);
    expect(streamed.stdout).toMatch(/confidence \d\.\d\d · builtin\/extractive · \d+ tokens/);

    const asJson = await mem(['ask', 'When am I meeting Sarah Chen?', '--space', 'answers', '--context', '--model', 'fast', '--json'], env);
    expect(json(asJson)).toMatchObject({ success: true, noResult: false, sources: [{ id: meeting }], context: [{ id: meeting }], model: 'builtin/extractive' });
    const nothing = await mem(['ask', 'quantum chromodynamics lattice gauge theory', '--space', 'answers'], env);
    expect(nothing.stdout).toContain("I don't have enough information in your memories to answer that.");
    const badModel = await mem(['ask', 'x', '--model', 'genius'], env);
    expect(badModel.exitCode).toBe(2);
    expect(badModel.stderr).toContain('--model must be one of default, fast, smart');

    const reminded = await mem(['remind', 'Preparing the roadmap review with Sarah Chen', '--timeframe', 'week', '--threshold', '0.2'], env);
    expect(reminded.exitCode, reminded.stderr).toBe(0);
    expect(reminded.stdout).toContain(meeting);
    expect(reminded.stdout).toMatch(/Mentions Sarah Chen, also named in your context/);
    const short = await mem(['remind', 'too short'], env);
    expect(short.exitCode).toBe(2);

    const turbo = await mem(['save', '--turbo', 'quick thought: try a standing desk', '--json'], env);
    expect(turbo.exitCode, turbo.stderr).toBe(0);
    const turboId = json<{ documentId: string; processingTime: number }>(turbo).documentId;
    const turboHuman = await mem(['save', '--turbo', 'another quick thought about desks'], env);
    expect(turboHuman.stdout).toMatch(/^Saved mem_\S+ {2}\(turbo, [\d.]+ ms\)/);
    const turboAsk = await mem(['ask', '--turbo', 'what was that quick thought about a standing desk?', '--json'], env);
    expect(json(turboAsk)).toMatchObject({ success: true, sources: [{ id: turboId }], processingTime: expect.any(Number) });
    const help = await mem(['ask', '--help'], env);
    expect(help.stdout).toContain('Examples:');
  });

  it('entities, facts, graph and extract show the knowledge of standard saves', async () => {
    const saved = await mem(['save', 'Sarah Chen is the CEO of Acme Corp. She met David Okafor from Globex in Berlin on 3 March 2026.', '--json'], env);
    expect(saved.exitCode, saved.stderr).toBe(0);
    const id = json<{ documentId: string }>(saved).documentId;

    const people = await mem(['entities', '--type', 'person', '--json'], env);
    expect(people.exitCode, people.stderr).toBe(0);
    const names = json<{ entities: { name: string; type: string }[] }>(people).entities.map((entity) => entity.name);
    expect(names).toEqual(expect.arrayContaining(['Sarah Chen', 'David Okafor']));
    const table = await mem(['entities', '--search', 'acme'], env);
    expect(table.stdout).toMatch(/NAME\s+TYPE\s+MENTIONS/);
    expect(table.stdout).toMatch(/Acme Corp\s+company/);

    const facts = await mem(['facts', '--entity', 'Sarah Chen', '--json'], env);
    expect(json<{ facts: unknown[] }>(facts).facts).toContainEqual(
      expect.objectContaining({ subject: 'Sarah Chen', predicate: 'CEO_OF', object: 'Acme Corp', category: 'role', source: { documentId: id, excerpt: 'Sarah Chen is the CEO of Acme Corp.' } }),
    );
    const factTable = await mem(['facts', '--entity', 'Sarah Chen'], env);
    expect(factTable.stdout).toMatch(/Sarah Chen\s+CEO_OF\s+Acme Corp\s+role\s+0\.90/);

    const graph = await mem(['graph', '--entity', 'Acme Corp', '--depth', '2', '--json'], env);
    expect(json<{ nodes: { name: string }[] }>(graph).nodes.map((node) => node.name)).toEqual(expect.arrayContaining(['Acme Corp', 'Sarah Chen']));
    const graphHuman = await mem(['graph', '--entity', 'Acme Corp'], env);
    expect(graphHuman.stdout).toMatch(/Sarah Chen\s+CEO_OF\s+Acme Corp/);
    // The entity as the argument, as a user first types it.
    expect((await mem(['graph', 'Acme Corp'], env)).stdout).toBe(graphHuman.stdout);
    expect((await mem(['facts', 'Sarah Chen'], env)).stdout).toBe(factTable.stdout);
    const twice = await mem(['graph', 'Acme Corp', '--entity', 'Globex'], env);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain('Give the entity once');

    const invalid = await mem(['entities', '--type', 'planet'], env);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr).toContain('person, company, product, concept, location, event, date');
    const deep = await mem(['graph', '--depth', '4'], env);
    expect(deep.exitCode).toBe(2);
    expect(deep.stderr).toContain('error[VALIDATION_ERROR]');

    const status = await mem(['extract', id, '--json'], env);
    expect(json(status)).toMatchObject({ status: 'completed', model: 'builtin/rules-v1' });
    const retry = await mem(['extract', '--retry-failed'], env);
    expect(retry.exitCode).toBe(0);
    expect(retry.stdout).toContain('No failed extractions.');
    // Every memory was extracted by the current model; --all takes them all again.
    expect((await mem(['extract', '--rerun'], env)).stdout).toContain('Every memory was extracted by the current model.');
    const rerun = await mem(['extract', '--rerun', '--all', '--json'], env);
    expect(json(rerun)).toMatchObject({ queued: expect.any(Number), memoryIds: expect.arrayContaining([id]) });
    const lonely = await mem(['extract', '--all'], env);
    expect(lonely.exitCode).toBe(2);
    expect(lonely.stderr).toContain('--all goes with --rerun');
    for (const command of ['entities', 'facts', 'graph', 'extract']) {
      expect((await mem([command, '--help'], env)).stdout).toContain('Examples:');
    }
  });

  it('daemon logs prints readable lines; stop is graceful and removes the run file', async () => {
    const logs = await mem(['daemon', 'logs', '-n', '5'], env);
    expect(logs.exitCode).toBe(0);
    expect(logs.stdout).toMatch(/info\s+daemon listening/);
    const stopped = await mem(['daemon', 'stop', '--json'], env);
    expect(json(stopped)).toMatchObject({ success: true, stopped: true });
    expect(existsSync(`${home.dir}/state/daemon.json`)).toBe(false);
    const status = await mem(['daemon', 'status'], env);
    expect(status.exitCode).toBe(11);
    expect(status.stdout).toContain('not running');
    const again = await mem(['daemon', 'start', '--json'], env);
    expect(again.exitCode).toBe(0);
  });
});
