import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  AskBody,
  AskResponse,
  EntitiesQuery,
  EntitiesResponse,
  FactsQuery,
  FactsResponse,
  GraphQuery,
  GraphResponse,
  MemoryParams,
  MemoryResponse,
  MessageResponse,
  RemindBody,
  RemindResponse,
  SaveBody,
  SaveSyncResponse,
  SearchBody,
  SearchResponse,
  UpdateBody,
} from '../api/contract.js';
import { MemError } from '../errors.js';
import type { MemoryApi } from './memory-api.js';
import { askText, entitiesText, factsText, graphText, memoryMarkdown, remindText, searchText } from './render.js';

/**
 * The ten tools: one per API operation an agent needs, with the API's own field limits (the shapes come from
 * the shared contract, so a limit changed there changes here), a description that says when to use the
 * tool, and hints clients use to decide what needs the user's confirmation. Results carry a short text for
 * the model and the API's JSON as structuredContent (validated against the same contract schema).
 */

/** An API failure as an MCP tool error: `CODE: message`, plus the hint when there is one. */
export function toolError(error: unknown): CallToolResult {
  const memError = error instanceof MemError ? error : new MemError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
  const text = `${memError.code}: ${memError.message}${memError.hint ? `\nHint: ${memError.hint}` : ''}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

async function respond<T extends Record<string, unknown>>(work: () => Promise<T>, render: (result: T) => string): Promise<CallToolResult> {
  try {
    const result = await work();
    return { content: [{ type: 'text', text: render(result) }], structuredContent: result };
  } catch (error) {
    return toolError(error);
  }
}

const id = MemoryParams.shape.id.describe('Memory id (`mem_` + 26 characters), as returned by save_memory, search_memories or ask.');
const tags = SaveBody.shape.tags;
const spaceId = SaveBody.shape.spaceId;

/** Read-only tools never change memories; every tool acts only on the local mem daemon (a closed world). */
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export function registerTools(server: McpServer, api: MemoryApi): void {
  server.registerTool(
    'save_memory',
    {
      title: 'Save a memory',
      description:
        "Store a piece of text in the user's long-term memory so it can be found later by meaning. Use it for things " +
        'worth remembering across conversations: decisions, facts about people and projects, preferences, notes, ' +
        'meeting summaries. Entities and facts are extracted from it automatically. Returns the new memory id. ' +
        'Saving the same text twice stores it twice, so search first when unsure.',
      inputSchema: {
        content: z.string().min(1, 'content must not be empty').max(200_000).describe('The text to remember (up to 100 KB). Self-contained: say who, what, when.'),
        title: SaveBody.shape.title.describe('Short title; derived from the content when omitted.'),
        description: SaveBody.shape.description.describe('Optional summary or context.'),
        tags: tags.describe('Labels for filtering later, e.g. ["work", "acme"].'),
        metadata: SaveBody.shape.metadata.describe('Free-form JSON properties (queryable), e.g. {"status": "todo"}.'),
        spaceId: spaceId.describe("Space (collection) to save into; the account's default space when omitted."),
        context: SaveBody.shape.context.describe('What the text answers or continues (e.g. the message it replies to); indexed with it so a search finds it through that, not stored as content.'),
        author: SaveBody.shape.author.describe("Who wrote or said the text (e.g. a chat message's speaker), as questions would name them."),
      },
      outputSchema: SaveSyncResponse,
      annotations: { title: 'Save a memory', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      respond(
        async () => {
          const response = await api.save({ ...args, async: false });
          if (!('documentId' in response)) throw new MemError('INTERNAL_ERROR', 'The daemon accepted the save asynchronously; expected the saved memory.');
          return response;
        },
        (response) => `Saved memory ${response.documentId} "${response.data.title}"${response.data.tags.length > 0 ? ` (tags: ${response.data.tags.join(', ')})` : ''}.`,
      ),
  );

  server.registerTool(
    'search_memories',
    {
      title: 'Search memories',
      description:
        "Find memories by what they say and what they mean (words and meaning in one 0-1 score). Use it before answering " +
        "anything that may depend on what the user saved or told you before, and to find a memory's id before " +
        'updating or deleting it. Returns the best matches with id, title, score (0-1) and content.',
      inputSchema: {
        query: SearchBody.shape.query.describe('What to look for, in natural language.'),
        limit: SearchBody.shape.limit.describe('Most results (1-100).'),
        offset: SearchBody.shape.offset.describe('Skip this many results (paging).'),
        threshold: SearchBody.shape.threshold.describe('Minimum relevance 0-1; lower it (e.g. 0.2) when nothing comes back.'),
        spaceId: SearchBody.shape.spaceId.describe('Only this space.'),
        tags: SearchBody.shape.tags.describe('Only memories with any of these tags.'),
        after: SearchBody.shape.after.describe('Only memories created at or after this ISO 8601 date.'),
        before: SearchBody.shape.before.describe('Only memories created at or before this ISO 8601 date.'),
        hybrid: SearchBody.shape.hybrid.describe('Default true: words and meaning. false: meaning only.'),
      },
      outputSchema: SearchResponse,
      annotations: { title: 'Search memories', ...readOnly },
    },
    (args) => respond(() => api.search(args), searchText),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask your memories',
      description:
        "Answer a question from the user's memories only: retrieves the relevant memories and composes a short " +
        'answer citing them (sources with ids). Use it for direct questions ("when is my meeting with Sarah?"); ' +
        'use search_memories when you want the raw memories to reason over yourself. Says so when the memories ' +
        'do not contain the answer.',
      inputSchema: {
        query: AskBody.shape.query.describe('The question, in natural language.'),
        limit: AskBody.shape.limit.describe('Most memories the answer may draw on (1-100).'),
        spaceId: AskBody.shape.spaceId.describe('Only memories of this space.'),
        filters: AskBody.shape.filters,
        includeContext: AskBody.shape.includeContext.describe('Also return the retrieved memories (in structuredContent.context).'),
        model: AskBody.shape.model,
      },
      outputSchema: AskResponse,
      annotations: { title: 'Ask your memories', ...readOnly, idempotentHint: false },
    },
    (args) => respond(() => api.ask(args), askText),
  );

  server.registerTool(
    'remind',
    {
      title: 'Recall relevant memories',
      description:
        'Given what the user is doing now (a task, a draft, a conversation), surface the memories they would want ' +
        'to be reminded of, each with the reason it is relevant. Use it proactively at the start of a task.',
      inputSchema: {
        context: RemindBody.shape.context.describe('What the user is working on (10 to 10,000 characters).'),
        limit: RemindBody.shape.limit.describe('Most reminders (1-100).'),
        threshold: RemindBody.shape.threshold.describe('Minimum relevance 0-1.'),
        timeframe: RemindBody.shape.timeframe,
      },
      outputSchema: RemindResponse,
      annotations: { title: 'Recall relevant memories', ...readOnly },
    },
    (args) => respond(() => api.remind(args), remindText),
  );

  server.registerTool(
    'get_memory',
    {
      title: 'Get a memory',
      description: 'Read one memory in full (content, title, tags, metadata, dates) by its id. Use it when a search result was truncated.',
      inputSchema: { id },
      outputSchema: MemoryResponse,
      annotations: { title: 'Get a memory', ...readOnly },
    },
    ({ id: memoryId }) => respond(() => api.getMemory(memoryId), (response) => memoryMarkdown(response.data)),
  );

  server.registerTool(
    'update_memory',
    {
      title: 'Update a memory',
      description:
        'Change fields of an existing memory; only the fields given change, and each replaces the old value ' +
        '(tags replaces the whole list). A new content is re-embedded and re-extracted. Use it to correct or ' +
        'extend what was saved instead of saving a near-duplicate.',
      inputSchema: {
        id,
        content: UpdateBody.shape.content.describe('New text (replaces the old content).'),
        title: UpdateBody.shape.title.describe('New title.'),
        description: UpdateBody.shape.description.describe('New description.'),
        tags: UpdateBody.shape.tags.describe('New tags (replaces the list).'),
        metadata: UpdateBody.shape.metadata.describe('New metadata (replaces the object).'),
        spaceId: UpdateBody.shape.spaceId.describe('Move to this space.'),
      },
      outputSchema: MemoryResponse,
      annotations: { title: 'Update a memory', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ id: memoryId, ...fields }) =>
      respond(
        () => api.updateMemory(memoryId, fields),
        (response) => `Updated memory ${response.data.id}.\n\n${memoryMarkdown(response.data)}`,
      ),
  );

  server.registerTool(
    'delete_memory',
    {
      title: 'Delete a memory',
      description:
        'Delete a memory permanently, with the facts extracted only from it. Cannot be undone: use it only when ' +
        'the user asks to forget something, and confirm the id (get_memory) first.',
      inputSchema: { id },
      outputSchema: MessageResponse,
      annotations: { title: 'Delete a memory', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ id: memoryId }) => respond(() => api.deleteMemory(memoryId), (response) => `${response.message}: ${memoryId}.`),
  );

  server.registerTool(
    'list_entities',
    {
      title: 'List entities',
      description:
        'List the people, companies, products, places, events... extracted from the memories, with aliases, ' +
        'mention counts and the memories that mention them. Use it to see who and what the user knows about, ' +
        'or to resolve a name before list_facts or get_graph.',
      inputSchema: {
        type: EntitiesQuery.shape.type.describe('Only this type.'),
        search: EntitiesQuery.shape.search,
        sortBy: EntitiesQuery.shape.sortBy,
        limit: EntitiesQuery.shape.limit.describe('Most entities (1-1000).'),
        offset: EntitiesQuery.shape.offset.describe('Skip this many (paging).'),
      },
      outputSchema: EntitiesResponse,
      annotations: { title: 'List entities', ...readOnly },
    },
    (args) => respond(() => api.entities(args), entitiesText),
  );

  server.registerTool(
    'list_facts',
    {
      title: 'List facts',
      description:
        'List facts (subject, predicate, object) extracted from the memories, e.g. "Sarah Chen CEO_OF Acme Corp", ' +
        'each with its category, confidence, source excerpt and validity (a later contradicting fact supersedes ' +
        'an earlier one). Use it for precise questions about a person or company.',
      inputSchema: {
        entity: FactsQuery.shape.entity,
        category: FactsQuery.shape.category.describe('Only this category.'),
        confidence: FactsQuery.shape.confidence.describe('Minimum confidence 0-1.'),
        includeSuperseded: z.boolean().optional().describe('Also return facts that later facts superseded (the history).'),
        limit: FactsQuery.shape.limit.describe('Most facts (1-1000).'),
        offset: FactsQuery.shape.offset.describe('Skip this many (paging).'),
      },
      outputSchema: FactsResponse,
      annotations: { title: 'List facts', ...readOnly },
    },
    (args) => respond(() => api.facts(args), factsText),
  );

  server.registerTool(
    'get_graph',
    {
      title: 'Get the knowledge graph',
      description:
        'The knowledge graph around an entity: the entities connected to it (breadth-first up to depth hops, ' +
        'strongest relationships first) and the relationships between them. Use it to explore how people, ' +
        'companies and projects relate.',
      inputSchema: {
        entity: GraphQuery.shape.entity,
        type: GraphQuery.shape.type.describe('Only nodes of this type.'),
        depth: GraphQuery.shape.depth.describe('Hops from the entity, 1-3.'),
        limit: GraphQuery.shape.limit.describe('Most nodes (1-1000).'),
      },
      outputSchema: GraphResponse,
      annotations: { title: 'Get the knowledge graph', ...readOnly },
    },
    (args) => respond(() => api.graph(args), graphText),
  );
}

