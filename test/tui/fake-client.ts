import type { AskBody, AskResponse, Entity, EntitiesResponse, Fact, GraphResponse, Memory, SearchBody } from '../../src/api/contract.js';
import type { AskStreamEvent, EntityParams, FactParams, GraphParams, ListParams } from '../../src/client/http-client.js';
import { MemError } from '../../src/errors.js';
import type { TuiClient } from '../../src/tui/tui-client.js';

/**
 * A scripted daemon for the TUI's tests: a small knowledge base answered the way the real routes answer
 * (graph breadth-first from the seed, seed first; entity search on names and aliases), every call recorded,
 * and switches for a daemon that is down, failing, or slow (a call held until the test releases it).
 */

type Method = keyof TuiClient;

const at = (day: string) => `2026-${day}T10:00:00.000Z`;

export const MEMORIES: Memory[] = [
  {
    id: 'mem_1',
    title: 'Roadmap meeting',
    content: 'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap.',
    description: '',
    tags: ['work', 'acme'],
    metadata: {},
    spaceId: 'default',
    createdAt: at('03-01'),
  },
  {
    id: 'mem_2',
    title: 'Sarah at Acme',
    content: 'Sarah Chen works at Acme Corp as the CTO. She lives in Berlin.',
    description: '',
    tags: [],
    metadata: {},
    spaceId: 'default',
    createdAt: at('02-10'),
  },
  {
    id: 'mem_3',
    title: 'Conference',
    content: 'David Kim joined Globex; he met Sarah at the Berlin conference.',
    description: '',
    tags: ['events'],
    metadata: {},
    spaceId: 'default',
    createdAt: at('01-05'),
  },
];

const entity = (id: string, name: string, type: Entity['type'], mentions: number, aliases: string[], documents: string[], first: string, last: string): Entity => ({
  id,
  name,
  type,
  aliases,
  properties: {},
  mentions,
  firstSeen: at(first),
  lastSeen: at(last),
  relatedDocuments: documents,
});

export const ENTITIES: Entity[] = [
  entity('ent_sarah', 'Sarah Chen', 'person', 4, ['Sarah'], ['mem_1', 'mem_2', 'mem_3'], '01-05', '03-01'),
  entity('ent_berlin', 'Berlin', 'location', 3, [], ['mem_1', 'mem_2', 'mem_3'], '01-05', '03-01'),
  entity('ent_acme', 'Acme Corp', 'company', 2, ['Acme'], ['mem_1', 'mem_2'], '02-10', '03-01'),
  entity('ent_david', 'David Kim', 'person', 1, [], ['mem_3'], '01-05', '01-05'),
  entity('ent_globex', 'Globex', 'company', 1, [], ['mem_3'], '01-05', '01-05'),
];

export const EDGES: GraphResponse['edges'] = [
  { source: 'ent_sarah', target: 'ent_acme', relationship: 'WORKS_AT', strength: 0.64 },
  { source: 'ent_sarah', target: 'ent_berlin', relationship: 'LOCATED_IN', strength: 0.42 },
  { source: 'ent_david', target: 'ent_globex', relationship: 'WORKS_AT', strength: 0.42 },
  { source: 'ent_david', target: 'ent_sarah', relationship: 'RELATED_TO', strength: 0.15 },
  { source: 'ent_acme', target: 'ent_berlin', relationship: 'RELATED_TO', strength: 0.15 },
];

const fact = (id: string, statement: string, subject: string, object: string, confidence: number, documentId: string): Fact => ({
  id,
  statement,
  subject,
  predicate: 'RELATED_TO',
  object,
  category: 'relationship',
  confidence,
  source: { documentId, excerpt: statement },
  extractedAt: at('03-01'),
  validFrom: null,
  validTo: null,
  supersededBy: null,
  supportingDocuments: [documentId],
});

export const FACTS: Fact[] = [
  fact('fact_1', 'Sarah Chen works at Acme Corp', 'Sarah Chen', 'Acme Corp', 0.9, 'mem_2'),
  fact('fact_2', 'Sarah Chen lives in Berlin', 'Sarah Chen', 'Berlin', 0.85, 'mem_2'),
  fact('fact_3', 'David Kim works at Globex', 'David Kim', 'Globex', 0.8, 'mem_3'),
];

/** A call held until the test releases it: how a slow daemon looks from the TUI. */
interface Held {
  readonly method: Method;
  readonly release: () => void;
}

/** An answer stream the test writes to, one event at a time. */
export class ScriptedStream {
  private readonly queue: (AskStreamEvent | Error)[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  delta(text: string): void {
    this.push({ type: 'delta', text });
  }

  done(response: AskResponse): void {
    this.push({ type: 'done', response });
    this.ended = true;
  }

  fail(error: Error): void {
    this.push(error);
    this.ended = true;
  }

  private push(event: AskStreamEvent | Error): void {
    this.queue.push(event);
    this.wake?.();
  }

  async *events(): AsyncGenerator<AskStreamEvent> {
    for (;;) {
      const next = this.queue.shift();
      if (next instanceof Error) throw next;
      if (next) {
        yield next;
        if (next.type === 'done') return;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

export function answer(text: string, sources: readonly Memory[]): AskResponse {
  return {
    success: true,
    answer: text,
    confidence: 0.72,
    tokensUsed: 42,
    noResult: sources.length === 0,
    sources: sources.map((memory) => ({ id: memory.id, title: memory.title })),
    model: 'builtin/extractive',
  };
}

export class FakeClient implements TuiClient {
  readonly calls: { method: Method; args: unknown }[] = [];
  /** Calls answered so far (successfully or not). */
  answered = 0;
  /** Every call fails as when no daemon answers. */
  down = false;
  /** The next call of a method fails with this error (once). */
  readonly failNext = new Map<Method, MemError>();
  /** Calls of these methods wait until released. */
  readonly holdMethods = new Set<Method>();
  readonly held: Held[] = [];
  /** Streams handed out by askStream, in order; the test scripts them. */
  readonly streams: ScriptedStream[] = [];
  /** Overrides the entities answer (to send malformed data). */
  entitiesOverride: (() => EntitiesResponse) | undefined;

  callsOf(method: Method) {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }

  private async answer<T>(method: Method, args: unknown, produce: () => T): Promise<T> {
    this.calls.push({ method, args });
    if (this.holdMethods.has(method)) await new Promise<void>((resolve) => this.held.push({ method, release: resolve }));
    this.answered += 1;
    if (this.down) {
      throw new MemError('DAEMON_UNREACHABLE', 'No mem daemon is answering at http://127.0.0.1:7373.', {
        hint: 'Start it with `mem daemon start` (background) or `mem serve` (foreground), or set MEM_HOST.',
      });
    }
    const failure = this.failNext.get(method);
    if (failure) {
      this.failNext.delete(method);
      throw failure;
    }
    return produce();
  }

  /** Lets the oldest held call of `method` go on. */
  release(method: Method): void {
    const index = this.held.findIndex((entry) => entry.method === method);
    const [entry] = index >= 0 ? this.held.splice(index, 1) : [];
    if (!entry) throw new Error(`no held ${method} call`);
    entry.release();
  }

  entities(params: EntityParams = {}) {
    return this.answer('entities', params, () => {
      if (this.entitiesOverride) return this.entitiesOverride();
      const search = params.search?.toLowerCase();
      let found = ENTITIES.filter(
        (candidate) =>
          (!params.type || candidate.type === params.type) &&
          (!search || [candidate.name, ...candidate.aliases].some((name) => name.toLowerCase().includes(search))),
      );
      found = [...found].sort((a, b) => b.mentions - a.mentions);
      const stats: Record<string, number> = {};
      for (const candidate of ENTITIES) stats[candidate.type] = (stats[candidate.type] ?? 0) + 1;
      return {
        success: true as const,
        entities: found.slice(params.offset ?? 0, (params.offset ?? 0) + (params.limit ?? 50)),
        pagination: { limit: params.limit ?? 50, offset: params.offset ?? 0, total: found.length },
        stats,
      };
    });
  }

  private resolve(reference: string): Entity | undefined {
    const wanted = reference.toLowerCase();
    return ENTITIES.find((candidate) => candidate.id === reference || [candidate.name, ...candidate.aliases].some((name) => name.toLowerCase() === wanted));
  }

  facts(params: FactParams = {}) {
    return this.answer('facts', params, () => {
      const about = params.entity === undefined ? undefined : this.resolve(params.entity);
      const found = params.entity === undefined ? FACTS : about ? FACTS.filter((item) => item.subject === about.name || item.object === about.name) : [];
      return { success: true as const, facts: found.slice(0, params.limit ?? 50), pagination: { limit: params.limit ?? 50, offset: 0, total: found.length } };
    });
  }

  graph(params: GraphParams = {}) {
    return this.answer('graph', params, (): GraphResponse => {
      const seed = params.entity === undefined ? undefined : this.resolve(params.entity);
      if (!seed) return { success: true, nodes: [], edges: [], stats: { totalNodes: 0, totalEdges: 0, types: {} } };
      const chosen = new Map([[seed.id, seed]]);
      let frontier = [seed.id];
      for (let level = 0; level < (params.depth ?? 1); level++) {
        const next: string[] = [];
        for (const edge of [...EDGES].sort((a, b) => b.strength - a.strength)) {
          for (const [from, to] of [
            [edge.source, edge.target],
            [edge.target, edge.source],
          ] as const) {
            const reached = ENTITIES.find((candidate) => candidate.id === to);
            if (!frontier.includes(from) || chosen.has(to) || !reached) continue;
            if (params.type && reached.type !== params.type) continue;
            chosen.set(to, reached);
            next.push(to);
          }
        }
        frontier = next;
      }
      const nodes = [...chosen.values()].map((item) => ({ id: item.id, name: item.name, type: item.type, properties: {}, mentionCount: item.mentions }));
      const edges = EDGES.filter((edge) => chosen.has(edge.source) && chosen.has(edge.target));
      const types: Record<string, number> = {};
      for (const node of nodes) types[node.type] = (types[node.type] ?? 0) + 1;
      return { success: true, nodes, edges, stats: { totalNodes: nodes.length, totalEdges: edges.length, types } };
    });
  }

  search(body: SearchBody) {
    return this.answer('search', body, () => {
      const words = body.query.toLowerCase().split(/\s+/).filter(Boolean);
      const results = MEMORIES.map((memory) => ({ memory, hits: words.filter((word) => memory.content.toLowerCase().includes(word)).length }))
        .filter(({ hits }) => hits > 0)
        .sort((a, b) => b.hits - a.hits)
        .map(({ memory, hits }) => ({ ...memory, score: Math.min(1, hits / words.length) * 0.9 }));
      return {
        success: true as const,
        results: results.map(({ id, content, title, score, tags, createdAt, spaceId }) => ({ id, content, title, score, tags, createdAt, spaceId })),
        pagination: { limit: body.limit ?? 10, offset: 0, total: results.length, hasMore: false },
      };
    });
  }

  listMemories(params: ListParams = {}) {
    return this.answer('listMemories', params, () => ({
      success: true as const,
      data: MEMORIES.slice(0, params.limit ?? 20),
      pagination: { limit: params.limit ?? 20, offset: 0, total: MEMORIES.length, hasMore: false },
    }));
  }

  getMemory(id: string) {
    return this.answer('getMemory', id, () => {
      const memory = MEMORIES.find((candidate) => candidate.id === id);
      if (!memory) throw new MemError('NOT_FOUND', 'Memory not found');
      return { success: true as const, data: memory };
    });
  }

  askStream(body: AskBody): AsyncIterable<AskStreamEvent> {
    this.calls.push({ method: 'askStream', args: body });
    const stream = new ScriptedStream();
    this.streams.push(stream);
    if (this.down) stream.fail(new MemError('DAEMON_UNREACHABLE', 'No mem daemon is answering at http://127.0.0.1:7373.'));
    return stream.events();
  }
}
