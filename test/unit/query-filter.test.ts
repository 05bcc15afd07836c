import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { MemoryService } from '../../src/core/memory-service.js';
import type { MemoryStore, Storage } from '../../src/core/ports.js';
import { compareBy, matches } from '../../src/core/query/evaluate.js';
import { parseSort } from '../../src/core/query/fields.js';
import { isTranslatable, parseFilter } from '../../src/core/query/filter.js';
import { Zone } from '../../src/core/query/time.js';
import { QueryService } from '../../src/core/query-service.js';
import type { MemoryRecord } from '../../src/core/types.js';
import { MemError } from '../../src/errors.js';
import type { EmbeddingModel } from '../../src/providers/spec.js';
import { openLanceStore } from '../../src/store/lancedb/lancedb-store.js';

/**
 * The filter language, table-driven: every case runs through the real LanceDB store (the translation of
 * predicate.ts, or its prefilter plus the evaluator for metadata) and through the plain reference evaluator
 * over the same fixtures; both must give the same memories, in the same order when a sort is given.
 */
const ACCOUNT = 'usr_query';
const OTHER = 'usr_other';
const DIM = 4;
const UTC = Zone.of('UTC');

interface Fixture {
  readonly title: string;
  readonly content?: string;
  readonly description?: string;
  readonly author?: string;
  readonly tags?: string[];
  readonly spaceId?: string;
  readonly createdAt: string;
  readonly updatedAt?: string;
  readonly metadata?: Record<string, unknown>;
}

const FIXTURES: Record<string, Fixture> = {
  roadmap: { title: 'Q3 roadmap', author: 'Sarah Chen', tags: ['work', 'acme'], spaceId: 'work', createdAt: '2025-01-06T09:00:00Z', metadata: { status: 'todo', priority: 3, owner: 'sarah', done: false } },
  invoice: { title: 'Invoice 4471', author: "Bob O'Neil", tags: ['work', 'finance'], spaceId: 'work', createdAt: '2025-01-07T12:00:00Z', updatedAt: '2025-02-01T00:00:00Z', metadata: { status: 'done', priority: 1, owner: 'bob', done: true, amount: 1200.5 } },
  dentist: { title: 'Dentist', author: 'Sarah Chen', tags: ['health'], spaceId: 'personal', createdAt: '2025-01-31T23:59:59.999Z', metadata: { status: 'todo', priority: 'high' } },
  recipe: { title: "Grandma's lasagna", tags: ['food'], spaceId: 'personal', createdAt: '2025-02-01T00:00:00.000Z' },
  running: { title: 'Ran 10 km', tags: ['health', 'sport'], spaceId: 'personal', createdAt: '2025-02-15T06:30:00Z', updatedAt: '2025-03-01T10:00:00Z', metadata: { status: 'doing', priority: 2, stats: { km: 10, pace: 5.2 } } },
  injection: { title: "x' OR 1=1 --", tags: ["o'brien"], spaceId: "it's", createdAt: '2025-03-01T00:00:00Z', metadata: { status: "x' OR 1=1 --" } },
  backslash: { title: 'back\\slash C:\\temp', tags: ['win'], createdAt: '2025-03-02T10:00:00Z', metadata: { path: 'C:\\temp', priority: 0 } },
  emoji: { title: '🧠 brain dump', tags: ['ideas'], createdAt: '2025-03-03T10:00:00Z', metadata: { status: 'todo', priority: 5, labels: ['a', 'b'] } },
  replacement: { title: '\uFFFD marker', tags: ['ideas', 'misc'], createdAt: '2025-03-04T10:00:00Z', metadata: { priority: 4.5 } },
  accented: { title: 'émigré notes', tags: ['reading'], spaceId: 'reading', createdAt: '2025-03-05T10:00:00Z', metadata: { status: 'Todo' } },
  percent: { title: '100% done_ish', tags: ['%', '_'], spaceId: 'work', createdAt: '2025-04-01T12:00:00+02:00', metadata: { status: 'done', priority: 2 } },
  untagged: { title: 'no tags here', tags: [], createdAt: '2025-04-02T10:00:00Z', metadata: { status: null } },
  nested: { title: 'nested metadata', tags: ['work'], spaceId: 'work', createdAt: '2025-04-03T10:00:00Z', updatedAt: '2025-04-04T10:00:00Z', metadata: { project: { name: 'apollo', phase: 2, "it's": 'quoted key' } } },
  dotted: { title: 'dotted key', tags: ['misc'], createdAt: '2025-04-05T10:00:00Z', metadata: { 'a.b': 1, a: { b: 2 } } },
  stringNumber: { title: 'string number', createdAt: '2025-05-01T10:00:00Z', metadata: { priority: '2', status: 'done' } },
  flags: { title: 'flags', tags: ['work'], spaceId: 'work', createdAt: '2025-05-02T10:00:00Z', metadata: { done: true, urgent: false } },
  twinA: { title: 'twin', tags: ['twin'], createdAt: '2025-05-03T08:00:00Z', metadata: { priority: 3 } },
  twinB: { title: 'twin', tags: ['twin'], createdAt: '2025-05-03T08:00:00Z', metadata: { priority: 3 } },
  nul: { title: 'nul\0byte', tags: ['nul'], createdAt: '2025-05-04T10:00:00Z' },
  fox: { title: 'fox', content: 'the quick brown fox', createdAt: '2025-05-05T10:00:00Z' },
  described: { title: 'with description', description: 'quarterly planning', tags: ['work', 'acme', 'planning'], spaceId: 'work', createdAt: '2025-06-01T10:00:00Z', updatedAt: '2025-06-02T10:00:00Z', metadata: { owner: 'sarah', priority: 1 } },
  deadline: { title: 'deadline', createdAt: '2025-06-15T10:00:00Z', metadata: { due: '2025-07-01', status: 'todo' } },
  old: { title: 'old note', tags: ['archive'], createdAt: '2024-12-31T23:00:00Z', metadata: { priority: -1 } },
  future: { title: '2026 plan', tags: ['plan'], createdAt: '2026-01-01T00:00:00Z', metadata: { priority: 10 } },
  edited: { title: 'edited', createdAt: '2025-01-10T00:00:00Z', updatedAt: '2025-01-10T00:00:00Z', metadata: { status: 'doing' } },
  numericKey: { title: 'numeric key', createdAt: '2025-07-01T10:00:00Z', metadata: { 2024: 'yes' } },
  sqlSpace: { title: 'space with quotes', tags: ['sql'], spaceId: "x' OR '1'='1", createdAt: '2025-07-02T10:00:00Z' },
  upper: { title: 'Apple', tags: ['Work'], createdAt: '2025-07-03T10:00:00Z' },
  lower: { title: 'apple', tags: ['work'], createdAt: '2025-07-04T10:00:00Z', metadata: { status: 'todo', priority: 2.5 } },
  slash: { title: 'quote"double', tags: ['"'], createdAt: '2025-07-05T10:00:00Z', metadata: { owner: 'o"neil' } },
  multiline: { title: 'multiline', tags: ['x'], createdAt: '2025-07-06T10:00:00Z', metadata: { note: 'line\nbreak é 🧠 \\ "q" \u0000', 'line\nbreak': 'key' } },
};

let dir: string;
let storage: Storage;
let store: MemoryStore;
let service: QueryService;
const ids: Record<string, string> = {};
const names = new Map<string, string>();
const records: MemoryRecord[] = [];

/** Queries here never carry text, so the embedder is never asked. */
const noEmbedder: EmbeddingModel = {
  provider: 'none',
  modelId: 'test/model',
  dimension: DIM,
  maxEmbeddingsPerCall: 1,
  init: async () => undefined,
  doEmbed: async () => {
    throw new Error('not used');
  },
  close: async () => undefined,
};

function record(fixture: Fixture): MemoryRecord {
  const createdAt = Date.parse(fixture.createdAt);
  return {
    id: newId('memory', createdAt),
    title: fixture.title,
    content: fixture.content ?? `content of ${fixture.title}`,
    description: fixture.description ?? '',
    context: '',
    author: fixture.author ?? '',
    tags: fixture.tags ?? [],
    metadata: fixture.metadata ?? {},
    spaceId: fixture.spaceId ?? '',
    createdAt,
    updatedAt: fixture.updatedAt ? Date.parse(fixture.updatedAt) : null,
    contentHash: 'h',
    turbo: false,
  };
}

const chunk = [{ seq: 0, text: 'x', vector: new Float32Array([0.5, 0.5, 0.5, 0.5]) }];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-query-'));
  storage = await openLanceStore({ uri: dir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
  store = storage.memories(ACCOUNT);
  for (const [name, fixture] of Object.entries(FIXTURES)) {
    const memory = record(fixture);
    ids[name] = memory.id;
    names.set(memory.id, name);
    records.push(memory);
    await store.insert(memory, chunk);
  }
  // Another account's copies of some fixtures: tenancy must hold for every query.
  for (const name of ['roadmap', 'injection', 'emoji']) {
    await storage.memories(OTHER).insert(record(FIXTURES[name] as Fixture), chunk);
  }
  service = new QueryService({ storage, memories: new MemoryService({ storage, embedder: noEmbedder }) });
});

afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const named = (list: readonly string[]) => list.map((id) => names.get(id) ?? `?${id}`);

interface Case {
  readonly filters: Record<string, unknown>;
  readonly sort?: Record<string, 1 | -1>;
  /** Expected fixture names, when the case pins them down (order matters only with sort). */
  readonly expect?: readonly string[];
}

/** Runs a case through LanceDB (and the store directly when translatable) and through the reference. */
async function check({ filters, sort, expect: expected }: Case) {
  const label = JSON.stringify({ filters, sort });
  const parsed = parseFilter(filters, { zone: UTC });
  const keys = parseSort(sort, false);
  const reference = records
    .filter((memory) => parsed === null || matches(parsed, memory))
    .map((memory) => ({ memory }))
    .sort(compareBy(keys))
    .map((entry) => entry.memory.id);

  const result = await service.run(ACCOUNT, { filters, sort, limit: 100, offset: 0 });
  const viaLance = result.hits.map((hit) => hit.memory.id);
  expect(result.total, label).toBe(reference.length);
  if (sort) expect(named(viaLance), label).toEqual(named(reference));
  else expect(named(viaLance).sort(), label).toEqual(named(reference).sort());
  if (expected) {
    if (sort) expect(named(reference), label).toEqual(expected);
    else expect(named(reference).sort(), label).toEqual([...expected].sort());
  }
  const builtInSort = !Object.keys(sort ?? {}).some((key) => key.startsWith('metadata.'));
  expect(result.strategy, label).toBe(isTranslatable(parsed) && builtInSort ? 'lancedb' : 'scan');
  if (isTranslatable(parsed)) {
    const direct = await store.select({ where: parsed, fields: ['id'] });
    expect(named(direct.rows.map((row) => row.id)).sort(), label).toEqual(named(reference).sort());
  }
  return reference;
}

const ALL = Object.keys(FIXTURES);
const without = (...excluded: string[]) => ALL.filter((name) => !excluded.includes(name));

const CASES: Record<string, Case[]> = {
  'no filter': [{ filters: {}, expect: ALL }],
  'text fields': [
    { filters: { title: 'Q3 roadmap' }, expect: ['roadmap'] },
    { filters: { title: { $eq: 'Q3 roadmap' } }, expect: ['roadmap'] },
    { filters: { title: { $ne: 'Q3 roadmap' } }, expect: without('roadmap') },
    { filters: { title: { $gt: 'twin' } }, expect: ['described', 'injection', 'emoji', 'replacement', 'accented'] },
    { filters: { title: { $gte: 'twin' } }, expect: ['described', 'injection', 'emoji', 'replacement', 'accented', 'twinA', 'twinB'] },
    { filters: { title: { $lt: 'Apple' } }, expect: ['percent', 'future'] },
    { filters: { title: { $lte: 'Apple' } }, expect: ['percent', 'future', 'upper'] },
    { filters: { title: { $in: ['Apple', 'apple', 'nope'] } }, expect: ['upper', 'lower'] },
    { filters: { title: { $nin: ['Apple', 'apple', 'nope'] } }, expect: without('upper', 'lower') },
    { filters: { title: { $in: [] } }, expect: [] },
    { filters: { title: { $nin: [] } }, expect: ALL },
    { filters: { title: { $gte: 'd', $lt: 'f' } }, expect: ['dotted', 'deadline', 'edited'] },
    { filters: { content: 'the quick brown fox' }, expect: ['fox'] },
    { filters: { content: { $gt: 'content of z' } }, expect: ['fox', 'emoji', 'replacement', 'accented'] },
    { filters: { description: 'quarterly planning' }, expect: ['described'] },
    { filters: { author: 'Sarah Chen' }, expect: ['roadmap', 'dentist'] },
    { filters: { author: { $in: ["Bob O'Neil", 'nobody'] } }, expect: ['invoice'] },
    { filters: { author: 'Sarah Chen', tags: 'health' }, expect: ['dentist'] },
    { filters: { author: { $gt: '' } }, sort: { author: 1, createdAt: 1 }, expect: ['invoice', 'roadmap', 'dentist'] },
    { filters: { description: { $ne: '' } }, expect: ['described'] },
    { filters: { spaceId: 'work' }, expect: ['roadmap', 'invoice', 'percent', 'nested', 'flags', 'described'] },
    { filters: { spaceId: { $in: ['personal', 'reading'] } }, expect: ['dentist', 'recipe', 'running', 'accented'] },
    { filters: { spaceId: '' }, expect: without('roadmap', 'invoice', 'percent', 'nested', 'flags', 'described', 'dentist', 'recipe', 'running', 'accented', 'injection', 'sqlSpace') },
    { filters: { spaceId: { $gt: 'work' } }, expect: ['sqlSpace'] },
  ],
  'unicode and escaping': [
    { filters: { title: { $gt: '\uFFFD' } }, expect: ['emoji', 'replacement'] },
    { filters: { title: { $gt: '\uFFFD marker' } }, expect: ['emoji'] },
    { filters: { title: { $lt: '🧠', $gt: 'z' } }, expect: ['replacement', 'accented'] },
    { filters: { title: '\uD800 marker' }, expect: ['replacement'] },
    { filters: { title: "Grandma's lasagna" }, expect: ['recipe'] },
    { filters: { title: 'back\\slash C:\\temp' }, expect: ['backslash'] },
    { filters: { title: '100% done_ish' }, expect: ['percent'] },
    { filters: { title: '100%' }, expect: [] },
    { filters: { title: 'quote"double' }, expect: ['slash'] },
    { filters: { title: 'nul\0byte' }, expect: [] },
    { filters: { title: { $in: ['émigré notes', '🧠 brain dump'] } }, expect: ['accented', 'emoji'] },
  ],
  'injection attempts': [
    { filters: { title: "x' OR 1=1 --" }, expect: ['injection'] },
    { filters: { title: "x' OR '1'='1" }, expect: [] },
    { filters: { title: { $ne: "') OR true --" } }, expect: ALL },
    { filters: { spaceId: "it's" }, expect: ['injection'] },
    { filters: { spaceId: "x' OR '1'='1" }, expect: ['sqlSpace'] },
    { filters: { spaceId: { $in: ["work') OR ('1'='1", "'; DROP TABLE memories; --"] } }, expect: [] },
    { filters: { tags: "o'brien" }, expect: ['injection'] },
    { filters: { tags: "work'), true) OR array_has(tags, 'x" }, expect: [] },
    { filters: { id: "' OR id <> '" }, expect: [] },
    { filters: { 'metadata.status': "x' OR 1=1 --" }, expect: ['injection'] },
    { filters: { "metadata.it's": { $ne: 1 } }, expect: ALL },
    { filters: { "metadata.project.it's": 'quoted key' }, expect: ['nested'] },
    { filters: { 'metadata.owner': 'o"neil' }, expect: ['slash'] },
  ],
  'tags (list semantics)': [
    { filters: { tags: 'work' }, expect: ['roadmap', 'invoice', 'nested', 'flags', 'described', 'lower'] },
    { filters: { tags: { $eq: 'acme' } }, expect: ['roadmap', 'described'] },
    { filters: { tags: { $ne: 'work' } }, expect: without('roadmap', 'invoice', 'nested', 'flags', 'described', 'lower') },
    { filters: { tags: { $in: ['health', 'food'] } }, expect: ['dentist', 'recipe', 'running'] },
    { filters: { tags: { $nin: ['health', 'food', 'work'] } }, expect: without('dentist', 'recipe', 'running', 'roadmap', 'invoice', 'nested', 'flags', 'described', 'lower') },
    { filters: { tags: { $in: [] } }, expect: [] },
    { filters: { tags: { $nin: [] } }, expect: ALL },
    { filters: { tags: 'Work' }, expect: ['upper'] },
    { filters: { tags: '%' }, expect: ['percent'] },
    { filters: { tags: '_' }, expect: ['percent'] },
    { filters: { tags: '"' }, expect: ['slash'] },
    { filters: { tags: 'work', spaceId: { $ne: 'work' } }, expect: ['lower'] },
    { filters: { tags: { $in: ['work'], $nin: ['acme', 'finance'] } }, expect: ['nested', 'flags', 'lower'] },
  ],
  dates: [
    { filters: { createdAt: '2025-01-31' }, expect: ['dentist'] },
    { filters: { createdAt: { $eq: '2025-02-01' } }, expect: ['recipe'] },
    { filters: { createdAt: { $gt: '2025-01-31', $lt: '2025-02-16' } }, expect: ['recipe', 'running'] },
    { filters: { createdAt: { $gte: '2025-01-31', $lte: '2025-02-01' } }, expect: ['dentist', 'recipe'] },
    { filters: { createdAt: { $lt: '2025-01-07' } }, expect: ['roadmap', 'old'] },
    { filters: { createdAt: { $lte: '2025-01-06' } }, expect: ['roadmap', 'old'] },
    { filters: { createdAt: { $lt: '2025-01-01' } }, expect: ['old'] },
    { filters: { createdAt: { $ne: '2025-01-31' } }, expect: without('dentist') },
    { filters: { createdAt: { $in: ['2025-01-31', '2025-05-03'] } }, expect: ['dentist', 'twinA', 'twinB'] },
    { filters: { createdAt: { $nin: ['2025-01-31', '2025-05-03'] } }, expect: without('dentist', 'twinA', 'twinB') },
    { filters: { createdAt: '2025-05-03T08:00:00Z' }, expect: ['twinA', 'twinB'] },
    { filters: { createdAt: '2025-05-03T10:00:00+02:00' }, expect: ['twinA', 'twinB'] },
    { filters: { createdAt: { $gte: '2025-04-01T12:00:00+02:00', $lte: '2025-04-01T10:00:00.000Z' } }, expect: ['percent'] },
    { filters: { createdAt: { $gt: Date.parse('2025-07-04T10:00:00Z') } }, expect: ['slash', 'multiline', 'future'] },
    { filters: { createdAt: { $in: [Date.parse('2025-02-01T00:00:00Z')] } }, expect: ['recipe'] },
    { filters: { createdAt: { $gte: '2026-01-01' } }, expect: ['future'] },
    { filters: { updatedAt: { $gt: '2025-01-01' } }, expect: ['invoice', 'running', 'nested', 'described', 'edited'] },
    { filters: { updatedAt: '2025-02-01' }, expect: ['invoice'] },
    { filters: { updatedAt: { $ne: '2025-02-01T00:00:00Z' } }, expect: without('invoice') },
    { filters: { updatedAt: { $nin: ['2025-02-01', '2025-03-01'] } }, expect: without('invoice', 'running') },
    { filters: { updatedAt: { $lte: '2025-02-01' } }, expect: ['invoice', 'edited'] },
    { filters: { updatedAt: { $in: [] } }, expect: [] },
    { filters: { updatedAt: { $nin: [] } }, expect: ALL },
  ],
  'metadata types': [
    { filters: { 'metadata.status': 'todo' }, expect: ['roadmap', 'dentist', 'emoji', 'deadline', 'lower'] },
    { filters: { 'metadata.status': { $ne: 'todo' } }, expect: without('roadmap', 'dentist', 'emoji', 'deadline', 'lower') },
    { filters: { 'metadata.status': { $in: ['todo', 'doing'] } }, expect: ['roadmap', 'dentist', 'emoji', 'deadline', 'lower', 'running', 'edited'] },
    { filters: { 'metadata.status': { $nin: ['todo', 'doing', 'done'] } }, expect: without('roadmap', 'dentist', 'emoji', 'deadline', 'lower', 'running', 'edited', 'invoice', 'percent', 'stringNumber') },
    { filters: { 'metadata.status': { $in: [] } }, expect: [] },
    { filters: { 'metadata.status': { $gt: 'doing' } }, expect: ['roadmap', 'dentist', 'emoji', 'deadline', 'lower', 'invoice', 'percent', 'stringNumber', 'injection'] },
    { filters: { 'metadata.priority': { $gte: 2 } }, expect: ['roadmap', 'running', 'emoji', 'replacement', 'percent', 'twinA', 'twinB', 'future', 'lower'] },
    { filters: { 'metadata.priority': { $lt: 1 } }, expect: ['backslash', 'old'] },
    { filters: { 'metadata.priority': 2 }, expect: ['running', 'percent'] },
    { filters: { 'metadata.priority': '2' }, expect: ['stringNumber'] },
    { filters: { 'metadata.priority': { $ne: 2 } }, expect: without('running', 'percent') },
    { filters: { 'metadata.priority': { $gt: '1' } }, expect: ['dentist', 'stringNumber'] },
    { filters: { 'metadata.priority': { $gt: 2, $lte: 4.5 } }, expect: ['roadmap', 'replacement', 'twinA', 'twinB', 'lower'] },
    { filters: { 'metadata.amount': { $gt: 1200 } }, expect: ['invoice'] },
    { filters: { 'metadata.done': true }, expect: ['invoice', 'flags'] },
    { filters: { 'metadata.done': { $ne: true } }, expect: without('invoice', 'flags') },
    { filters: { 'metadata.done': { $lt: true } }, expect: ['roadmap'] },
    { filters: { 'metadata.urgent': false }, expect: ['flags'] },
    { filters: { 'metadata.done': 'true' }, expect: [] },
    { filters: { 'metadata.stats.km': { $gte: 10 } }, expect: ['running'] },
    { filters: { 'metadata.stats': { $ne: 1 } }, expect: ALL },
    { filters: { 'metadata.stats': { $gt: 0 } }, expect: [] },
    { filters: { 'metadata.project.name': 'apollo' }, expect: ['nested'] },
    { filters: { 'metadata.project.phase': { $in: [1, 2] } }, expect: ['nested'] },
    { filters: { 'metadata.a.b': 2 }, expect: ['dotted'] },
    { filters: { 'metadata.a.b': 1 }, expect: [] },
    { filters: { 'metadata.2024': 'yes' }, expect: ['numericKey'] },
    { filters: { 'metadata.labels': 'a' }, expect: ['emoji'] },
    { filters: { 'metadata.labels': { $in: ['b', 'c'] } }, expect: ['emoji'] },
    { filters: { 'metadata.labels': { $nin: ['a'] } }, expect: without('emoji') },
    { filters: { 'metadata.labels': { $gt: 'a' } }, expect: [] },
    { filters: { 'metadata.due': { $lt: '2025-12-31' } }, expect: ['deadline'] },
    { filters: { 'metadata.missing': 1 }, expect: [] },
    { filters: { 'metadata.missing': { $ne: 1 } }, expect: ALL },
    { filters: { 'metadata.missing.deeper': { $nin: ['x'] } }, expect: ALL },
    { filters: { 'metadata.missing': { $lt: 100 } }, expect: [] },
    { filters: { 'metadata.status.length': 4 }, expect: [] },
    { filters: { 'metadata.owner': 'sarah', tags: 'acme' }, expect: ['roadmap', 'described'] },
    { filters: { 'metadata.note': 'line\nbreak é 🧠 \\ "q" \u0000' }, expect: ['multiline'] },
    { filters: { 'metadata.note': { $in: ['nope', 'line\nbreak é 🧠 \\ "q" \u0000'] } }, expect: ['multiline'] },
    { filters: { 'metadata.note': 'line\nbreak' }, expect: [] },
    { filters: { 'metadata.line\nbreak': 'key' }, expect: ['multiline'] },
    { filters: { 'metadata.owner': { $in: ['sarah', 'bob'] }, 'metadata.priority': { $gte: 1 } }, expect: ['roadmap', 'invoice', 'described'] },
  ],
  nesting: [
    {
      filters: { $and: [{ tags: { $in: ['work', 'acme'] } }, { 'metadata.status': { $ne: 'done' } }] },
      expect: ['roadmap', 'nested', 'flags', 'described', 'lower'],
    },
    {
      filters: { $or: [{ spaceId: 'personal' }, { 'metadata.priority': { $gte: 4 } }] },
      expect: ['dentist', 'recipe', 'running', 'emoji', 'replacement', 'future'],
    },
    {
      filters: { $or: [{ spaceId: 'personal' }, { tags: 'ideas' }], createdAt: { $gte: '2025-02-01' } },
      expect: ['recipe', 'running', 'emoji', 'replacement'],
    },
    {
      filters: {
        $and: [
          { $or: [{ tags: 'work' }, { $and: [{ spaceId: 'personal' }, { 'metadata.status': 'todo' }] }] },
          { $or: [{ createdAt: { $lt: '2025-02-01' } }, { 'metadata.owner': 'sarah' }] },
        ],
      },
      expect: ['roadmap', 'invoice', 'dentist', 'described'],
    },
    { filters: { $and: [{ $and: [{ $and: [{ title: 'fox' }] }] }] }, expect: ['fox'] },
    { filters: { $or: [{}, { title: 'nope' }] }, expect: ALL },
    { filters: { $or: [{ title: 'nope' }, { tags: { $in: [] } }] }, expect: [] },
    { filters: { title: { $gte: 'a' }, $or: [{ tags: 'work' }, { tags: 'ideas' }], $and: [{ spaceId: { $ne: 'work' } }] }, expect: ['emoji', 'replacement', 'lower'] },
  ],
};

describe('filter language: LanceDB and the reference evaluator agree', () => {
  for (const [group, cases] of Object.entries(CASES)) {
    it(group, async () => {
      for (const testCase of cases) await check(testCase);
    });
  }

  it('nesting beyond what LanceDB parses is evaluated in memory, with the same result', async () => {
    let deep: Record<string, unknown> = { tags: 'work' };
    for (let level = 0; level < 30; level++) {
      deep = level % 2 === 0 ? { $or: [deep, { title: `nope ${level}` }] } : { $and: [deep, { title: { $ne: `nope ${level}` } }] };
    }
    const parsed = parseFilter(deep, { zone: UTC });
    expect(isTranslatable(parsed)).toBe(false);
    await check({ filters: deep, expect: ['roadmap', 'invoice', 'nested', 'flags', 'described', 'lower'] });
    await check({ filters: { ...deep, createdAt: { $gte: '2025-04-01' } }, expect: ['nested', 'flags', 'described', 'lower'] });
  });

  it('the store narrows metadata string equalities by the JSON text, never losing a match', async () => {
    const filter = parseFilter({ 'metadata.status': { $in: ['todo', 'doing'] }, 'metadata.priority': { $gte: 0 } }, { zone: UTC });
    const narrowed = await store.select({ where: null, fields: ['id', 'metadata'], narrow: filter });
    const everything = await store.select({ where: null, fields: ['id'] });
    expect(narrowed.rows.length).toBeLessThan(everything.rows.length);
    const expected = records.filter((memory) => filter !== null && matches(filter, memory)).map((memory) => memory.id);
    expect(narrowed.rows.map((row) => row.id)).toEqual(expect.arrayContaining(expected));
    // Numbers, booleans and negations give no text condition: nothing is dropped.
    for (const loose of [{ 'metadata.priority': 2 }, { 'metadata.done': true }, { 'metadata.status': { $ne: 'todo' } }, { $or: [{ 'metadata.status': 'todo' }, { title: 'fox' }] }]) {
      const rows = await store.select({ where: null, fields: ['id'], narrow: parseFilter(loose, { zone: UTC }) });
      expect(rows.total, JSON.stringify(loose)).toBe(everything.total);
    }
  });

  it('large $in lists and long $or chains', async () => {
    const many = Array.from({ length: 999 }, (_, i) => `tag${i}`);
    await check({ filters: { tags: { $in: [...many, 'acme'] } }, expect: ['roadmap', 'described'] });
    await check({ filters: { title: { $nin: many } }, expect: ALL });
    await check({ filters: { $or: many.slice(0, 300).map((title) => ({ title })).concat([{ title: 'fox' }]) }, expect: ['fox'] });
  });

  it('sorts: LanceDB order (built-in fields) and evaluator order (metadata) match the reference', async () => {
    const sorts: Record<string, 1 | -1>[] = [
      { title: 1 },
      { title: -1 },
      { createdAt: 1 },
      { createdAt: -1 },
      { updatedAt: -1 },
      { updatedAt: 1 },
      { spaceId: 1, createdAt: -1 },
      { spaceId: -1, title: 1, createdAt: 1 },
      { 'metadata.priority': -1 },
      { 'metadata.priority': 1 },
      { 'metadata.status': 1, title: -1 },
      { id: 1 },
    ];
    for (const sort of sorts) {
      await check({ filters: {}, sort });
      await check({ filters: { tags: { $nin: ['work'] } }, sort });
      await check({ filters: { 'metadata.priority': { $ne: 3 } }, sort });
    }
    // Code point order (LanceDB's byte order): U+FFFD before U+1F9E0, unlike JS's default `<`.
    const byTitle = await check({ filters: { title: { $gt: 'twin' } }, sort: { title: 1 } });
    expect(named(byTitle)).toEqual(['described', 'injection', 'accented', 'replacement', 'emoji']);
    // Missing values last both ways; booleans < numbers < strings across types.
    const byPriority = await check({ filters: { 'metadata.priority': { $ne: 2 } }, sort: { 'metadata.priority': -1, createdAt: 1 } });
    const twins = (list: string[]) => list.map((name) => (name.startsWith('twin') ? 'twin' : name));
    expect(twins(named(byPriority))).toEqual([
      ...['dentist', 'stringNumber'],
      ...['future', 'emoji', 'replacement', 'roadmap', 'twin', 'twin', 'lower', 'invoice', 'described', 'backslash', 'old'],
      ...['edited', 'recipe', 'injection', 'accented', 'untagged', 'nested', 'dotted', 'flags', 'nul', 'fox', 'deadline', 'numericKey', 'sqlSpace', 'upper', 'slash', 'multiline'],
    ]);
    const updated = await check({ filters: {}, sort: { updatedAt: 1 } });
    expect(named(updated).slice(0, 2)).toEqual(['edited', 'invoice']);
    expect(named(updated).slice(5).every((name) => FIXTURES[name]?.updatedAt === undefined)).toBe(true);
  });

  it('the default order is newest first, ties by id; pages are stable and exact', async () => {
    const all = await check({ filters: {} });
    const full = (await service.run(ACCOUNT, { limit: 100, offset: 0 })).hits.map((hit) => hit.memory.id);
    expect(full).toEqual([...full].sort((a, b) => (records.find((r) => r.id === b)?.createdAt ?? 0) - (records.find((r) => r.id === a)?.createdAt ?? 0) || (a < b ? 1 : -1)));
    expect(full).toHaveLength(all.length);
    const requests: { sort?: Record<string, 1 | -1>; filters?: Record<string, unknown> }[] = [
      {},
      { sort: { 'metadata.priority': -1 } },
      { filters: { 'metadata.status': { $ne: 'x' } } },
      { sort: { title: 1 } },
    ];
    for (const request of requests) {
      const everything = (await service.run(ACCOUNT, { ...request, limit: 100, offset: 0 })).hits.map((hit) => hit.memory.id);
      const pages: string[] = [];
      for (let offset = 0; offset < everything.length + 7; offset += 7) {
        const page = await service.run(ACCOUNT, { ...request, limit: 7, offset });
        expect(page.total).toBe(everything.length);
        pages.push(...page.hits.map((hit) => hit.memory.id));
      }
      expect(pages).toEqual(everything);
    }
  });

  it('fields restrict what is read and returned, on both paths', async () => {
    for (const filters of [{ tags: 'acme' }, { 'metadata.owner': 'sarah' }]) {
      const result = await service.run(ACCOUNT, { filters, fields: ['title', 'tags'], limit: 10, offset: 0 });
      expect(result.hits.map((hit) => hit.memory).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
        [ids.roadmap, ids.described].sort().map((id) => ({ id, title: records.find((r) => r.id === id)?.title, tags: records.find((r) => r.id === id)?.tags })),
      );
    }
    const idsOnly = await service.run(ACCOUNT, { filters: { title: 'fox' }, fields: [], limit: 10, offset: 0 });
    expect(idsOnly.hits).toEqual([{ memory: { id: ids.fox } }]);
    const stored = await store.get(ids.nested ?? '');
    const full = await service.run(ACCOUNT, { filters: { title: 'nested metadata' }, limit: 10, offset: 0 });
    // The query's fields: everything but the internal hash and flag and the context (not a query field).
    const { contentHash: _hash, turbo: _turbo, context: _context, ...visible } = stored as MemoryRecord;
    expect(full.hits[0]?.memory).toEqual(visible);
  });

  it('never returns another account’s memories', async () => {
    const other = new QueryService({ storage, memories: new MemoryService({ storage, embedder: noEmbedder }) });
    const mine = await other.run(OTHER, { filters: { title: { $nin: [] } }, limit: 100, offset: 0 });
    expect(mine.total).toBe(3);
    const scan = await other.run(OTHER, { filters: { 'metadata.status': { $ne: 'zzz' } }, limit: 100, offset: 0 });
    expect(scan.total).toBe(3);
    expect(scan.hits.every((hit) => !names.has(hit.memory.id))).toBe(true);
  });
});

describe('filter language: validation errors name the offending path', () => {
  const ERRORS: [unknown, string | RegExp][] = [
    [{ $foo: 1 }, /^filters: unknown operator \$foo/],
    [{ $and: [{ title: 'x' }, { 'metadata.status': { $foo: 1 } }] }, /^filters\.\$and\[1\]\.metadata\.status: unknown operator \$foo/],
    [{ colour: 'red' }, /^filters\.colour: unknown field "colour"/],
    [{ "title'": 'x' }, /^filters\.title': unknown field "title'"/],
    [{ 'title" OR 1=1 --': 'x' }, /unknown field/],
    [{ $or: [{ tags: 'a' }, { 'x\'); DROP TABLE memories; --': 1 }] }, /^filters\.\$or\[1\]\.x'\); DROP TABLE memories; --: unknown field/],
    [{ tags: { $in: 'work' } }, /^filters\.tags\.\$in: \$in expects an array of values, got string "work"/],
    [{ title: { $nin: { a: 1 } } }, /^filters\.title\.\$nin: \$nin expects an array/],
    [{ $and: {} }, /^filters\.\$and: \$and expects a non-empty array of filter objects/],
    [{ $or: [] }, /^filters\.\$or: \$or expects a non-empty array/],
    [{ $or: [1, 2] }, /^filters\.\$or: \$or expects a non-empty array of filter objects/],
    [{ $or: [{ title: 'a' }, [{ title: 'b' }]] }, /^filters\.\$or: /],
    [{ title: { $eq: { a: 1 } } }, /^filters\.title\.\$eq: expected a string, got an object/],
    [{ title: 5 }, /^filters\.title: expected a string, got number 5/],
    [{ spaceId: { $in: ['a', 3] } }, /^filters\.spaceId\.\$in\[1\]: expected a string/],
    [{ tags: { $gt: 'a' } }, /^filters\.tags\.\$gt: tags is a list/],
    [{ tags: ['a', 'b'] }, /^filters\.tags: a bare array is not a value/],
    [{ title: {} }, /^filters\.title: expected a value or operators/],
    [{ title: { status: 'x' } }, /^filters\.title: unknown operator status/],
    [{ title: { $and: [{ title: 'x' }] } }, /^filters\.title: unknown operator \$and/],
    [{ title: { $regex: '.*' } }, /^filters\.title: unknown operator \$regex/],
    [{ createdAt: 'yesterday' }, /^filters\.createdAt: expected an ISO 8601 date/],
    [{ createdAt: '2025-02-30' }, /^filters\.createdAt: expected an ISO 8601 date/],
    [{ createdAt: '2025-01-01T10:00:00' }, /^filters\.createdAt: expected an ISO 8601 date/],
    [{ createdAt: '2025-01-01T24:00:00Z' }, /^filters\.createdAt: expected an ISO 8601 date/],
    [{ updatedAt: { $gte: true } }, /^filters\.updatedAt\.\$gte: expected an ISO 8601 date/],
    [{ createdAt: 1.5 }, /^filters\.createdAt: expected an ISO 8601 date/],
    [{ createdAt: { $in: ['2025-01-01', 'soon'] } }, /^filters\.createdAt\.\$in\[1\]: expected an ISO 8601 date/],
    [{ metadata: { status: 'x' } }, /^filters\.metadata: metadata needs a path/],
    [{ 'metadata.': 1 }, /^filters\.metadata\.: invalid metadata path/],
    [{ 'metadata.a..b': 1 }, /invalid metadata path "metadata\.a\.\.b"/],
    [{ 'metadata.status': null }, /^filters\.metadata\.status: expected a string, number or boolean, got null/],
    [{ 'metadata.status': { $in: [{ a: 1 }] } }, /^filters\.metadata\.status\.\$in\[0\]: expected a string, number or boolean, got an object/],
    [{ 'metadata.status': { $gt: [1] } }, /^filters\.metadata\.status\.\$gt: expected a string, number or boolean, got an array/],
    [[], /^filters: expected a filter object, got an array/],
    [null, /^filters: expected a filter object, got null/],
    [{ tags: { $in: Array.from({ length: 1001 }, (_, i) => `t${i}`) } }, /^filters\.tags\.\$in: \$in takes at most 1000 values/],
  ];

  it('rejects each malformed filter with VALIDATION_ERROR', () => {
    for (const [filters, message] of ERRORS) {
      let error: unknown;
      try {
        parseFilter(filters, { zone: UTC });
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(filters)).toBeInstanceOf(MemError);
      expect((error as MemError).code).toBe('VALIDATION_ERROR');
      expect((error as MemError).message, JSON.stringify(filters)).toMatch(message);
    }
  });

  it('refuses nesting deeper than 32 levels', () => {
    let deep: Record<string, unknown> = { title: 'x' };
    for (let level = 0; level < 40; level++) deep = { [level % 2 ? '$and' : '$or']: [deep] };
    expect(() => parseFilter(deep, { zone: UTC })).toThrow(/nest deeper than 32 levels/);
  });

  it('sort and fields name their offending entries too', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ sort: { tags: 1 } }, /^sort\.tags: cannot sort by tags/],
      [{ sort: { colour: 1 } }, /^sort\.colour: unknown field/],
      [{ sort: { score: -1 } }, /^sort\.score: score exists only when the query has text/],
      [{ sort: { title: 2 } }, /^sort\.title: sort direction must be 1/],
      [{ fields: ['title', 'colour'] }, /^fields\[1\]: unknown field "colour"/],
      [{ filters: { 'metadata.x': { $foo: 1 } } }, /^filters\.metadata\.x: unknown operator \$foo/],
    ];
    for (const [input, message] of cases) {
      await expect(service.run(ACCOUNT, { limit: 10, offset: 0, ...input }), JSON.stringify(input)).rejects.toThrow(message);
    }
    await expect(service.run(ACCOUNT, { limit: 10, offset: 0 }, { timezone: 'Mars/Olympus' })).rejects.toThrow(/Unknown time zone/);
  });
});
