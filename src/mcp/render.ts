import type {
  AskResponse,
  EntitiesResponse,
  FactsResponse,
  GraphResponse,
  Memory,
  RemindResponse,
  SearchResponse,
} from '../api/contract.js';

/**
 * The text an agent reads from each tool. Short and plain (no colour, no tables sized to a terminal), but
 * never lossy where the model needs the data: ids are always shown so it can follow up with get_memory,
 * and long contents say how to get the rest. The full API JSON travels alongside as structuredContent.
 */

const SEARCH_EXCERPT = 800;

function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const day = (iso: string) => iso.slice(0, 10);
const list = (values: readonly string[]) => (values.length > 0 ? values.join(', ') : 'none');

/** A memory as a markdown document: front matter (JSON scalars, which YAML reads too), then the content. */
export function memoryMarkdown(memory: Memory): string {
  const header = [
    `id: ${memory.id}`,
    `title: ${JSON.stringify(memory.title)}`,
    `tags: ${JSON.stringify(memory.tags)}`,
    `spaceId: ${JSON.stringify(memory.spaceId)}`,
    `createdAt: ${memory.createdAt}`,
    ...(memory.updatedAt ? [`updatedAt: ${memory.updatedAt}`] : []),
    ...(memory.description ? [`description: ${JSON.stringify(memory.description)}`] : []),
    ...(Object.keys(memory.metadata).length > 0 ? [`metadata: ${JSON.stringify(memory.metadata)}`] : []),
  ];
  return `---\n${header.join('\n')}\n---\n\n${memory.content}\n`;
}

export function searchText(response: SearchResponse): string {
  const { total, offset, hasMore } = response.pagination;
  if (response.results.length === 0) {
    return total > 0 ? `No results at offset ${offset} (${total} in all).` : 'No memories matched. Try other words, or a lower threshold.';
  }
  const lines = response.results.map((result, i) => {
    const head = `${offset + i + 1}. ${result.title || '(untitled)'} [${result.id}] score ${result.score.toFixed(2)}, ${day(result.createdAt)}${result.tags.length > 0 ? `, tags: ${result.tags.join(', ')}` : ''}`;
    const body = excerpt(result.content, SEARCH_EXCERPT);
    const cut = body.length < result.content.replace(/\s+/g, ' ').trim().length ? ' (truncated: get_memory for all of it)' : '';
    return `${head}\n   ${body}${cut}`;
  });
  return [
    `${response.results.length} of ${total} matching memories${hasMore ? ` (more with offset ${offset + response.results.length})` : ''}:`,
    ...lines,
  ].join('\n');
}

export function askText(response: AskResponse): string {
  if (response.noResult) {
    return [response.answer, response.suggestion ? `Suggestion: ${response.suggestion}` : ''].filter(Boolean).join('\n');
  }
  const sources = response.sources.map((source, i) => `[${i + 1}] ${source.title || '(untitled)'} [${source.id}]`);
  return [
    response.answer,
    '',
    sources.length > 0 ? `Sources:\n${sources.join('\n')}` : 'Sources: none',
    `Confidence ${response.confidence.toFixed(2)} (${response.model}).`,
  ].join('\n');
}

export function remindText(response: RemindResponse): string {
  if (response.reminders.length === 0) return 'Nothing relevant in your memories for this context.';
  return [
    `${response.reminders.length} of ${response.totalFound} relevant memories:`,
    ...response.reminders.map(
      (reminder, i) =>
        `${i + 1}. ${reminder.title || '(untitled)'} [${reminder.id}] relevance ${reminder.relevance.toFixed(2)}, ${day(reminder.createdAt)}\n   Why: ${reminder.reason}\n   ${excerpt(reminder.content, 200)}`,
    ),
  ].join('\n');
}

export function entitiesText(response: EntitiesResponse): string {
  const { total, offset } = response.pagination;
  if (response.entities.length === 0) return total > 0 ? `No entities at offset ${offset} (${total} in all).` : 'No entities found.';
  return [
    `${response.entities.length} of ${total} entities:`,
    ...response.entities.map(
      (entity) =>
        `- ${entity.name} (${entity.type}) [${entity.id}]: ${entity.mentions} mention${entity.mentions === 1 ? '' : 's'}, ` +
        `aliases: ${list(entity.aliases)}, last seen ${day(entity.lastSeen)}, memories: ${list(entity.relatedDocuments)}`,
    ),
  ].join('\n');
}

export function factsText(response: FactsResponse): string {
  const { total, offset } = response.pagination;
  if (response.facts.length === 0) return total > 0 ? `No facts at offset ${offset} (${total} in all).` : 'No facts found.';
  // A date still to come: true until then, or not true yet.
  const now = Date.now();
  return [
    `${response.facts.length} of ${total} facts:`,
    ...response.facts.map((fact) => {
      const validity = fact.validTo
        ? Date.parse(fact.validTo) > now
          ? `true until ${day(fact.validTo)}`
          : `no longer true since ${day(fact.validTo)}`
        : fact.validFrom
          ? Date.parse(fact.validFrom) > now
            ? `true from ${day(fact.validFrom)}`
            : `true since ${day(fact.validFrom)}`
          : 'current';
      return `- ${fact.subject} ${fact.predicate} ${fact.object} (${fact.category}, confidence ${fact.confidence.toFixed(2)}, ${validity}) from ${fact.source.documentId}: "${excerpt(fact.source.excerpt, 200)}"`;
    }),
  ].join('\n');
}

export function graphText(response: GraphResponse): string {
  if (response.nodes.length === 0) return 'No entities in this graph.';
  const names = new Map(response.nodes.map((node) => [node.id, node.name]));
  return [
    `${response.stats.totalNodes} entities, ${response.stats.totalEdges} relationships.`,
    'Entities:',
    ...response.nodes.map((node) => `- ${node.name} (${node.type}) [${node.id}]: ${node.mentionCount} mentions`),
    'Relationships:',
    ...(response.edges.length === 0
      ? ['- none']
      : response.edges.map(
          (edge) => `- ${names.get(edge.source) ?? edge.source} ${edge.relationship} ${names.get(edge.target) ?? edge.target} (strength ${edge.strength.toFixed(2)})`,
        )),
  ].join('\n');
}
