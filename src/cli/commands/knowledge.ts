import type { Command } from 'commander';
import type { EnrichResponse, EntitiesResponse, FactsResponse, GraphResponse } from '../../api/contract.js';
import { ENTITY_SORTS, ENTITY_TYPES, FACT_CATEGORIES } from '../../api/vocabulary.js';
import { MemError } from '../../errors.js';
import { choiceOption, daemonArgument, daemonOption } from '../completion-values.js';
import { clientFor } from '../context.js';
import { parseNumber } from '../input.js';
import { shortDate, style, table, terminalWidth, truncate } from '../output.js';

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new MemError('VALIDATION_ERROR', `${flag} must be one of ${allowed.join(', ')} (got "${value}").`);
  }
  return value as T;
}

const optionalNumber = (value: string | undefined, flag: string) => (value === undefined ? undefined : parseNumber(value, flag));

/** The entity given as the argument or as --entity ("mem graph Nate" is "mem graph --entity Nate"); not two. */
function oneEntity(argument: string | undefined, option: string | undefined): string | undefined {
  if (argument !== undefined && option !== undefined && argument !== option) {
    throw new MemError('VALIDATION_ERROR', `Give the entity once: "${argument}" or --entity "${option}".`);
  }
  return argument ?? option;
}

function renderEntities(response: EntitiesResponse): string {
  const { total, offset } = response.pagination;
  if (response.entities.length === 0) return style.dim(total > 0 ? `No entities at offset ${offset} (${total} in all).` : 'No entities found.');
  const rows = response.entities.map((entity) => [
    truncate(entity.name, 32),
    entity.type,
    String(entity.mentions),
    truncate(entity.aliases.join(', '), 30),
    shortDate(entity.firstSeen),
    shortDate(entity.lastSeen),
    String(entity.relatedDocuments.length),
  ]);
  const stats = Object.entries(response.stats)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');
  return [
    table(rows, ['NAME', 'TYPE', 'MENTIONS', 'ALIASES', 'FIRST SEEN', 'LAST SEEN', 'DOCS']),
    style.dim(`${offset + 1}-${offset + response.entities.length} of ${total}${stats ? `  (${stats})` : ''}`),
  ].join('\n');
}

function renderFacts(response: FactsResponse): string {
  const { total, offset } = response.pagination;
  if (response.facts.length === 0) return style.dim(total > 0 ? `No facts at offset ${offset} (${total} in all).` : 'No facts found.');
  const width = terminalWidth();
  const header = ['SUBJECT', 'PREDICATE', 'OBJECT', 'CATEGORY', 'CONF', 'VALID', 'EXCERPT'];
  const cells = response.facts.map((fact) => [
    truncate(fact.subject, 24),
    fact.predicate,
    truncate(fact.object, 24),
    fact.category,
    fact.confidence.toFixed(2),
    fact.validTo
      ? `until ${fact.validTo.slice(0, 10)}`
      : fact.validFrom
        ? `${Date.parse(fact.validFrom) > Date.now() ? 'from' : 'since'} ${fact.validFrom.slice(0, 10)}`
        : 'current',
  ]);
  // The excerpt (the sentence that states the fact) gets whatever width the other columns leave.
  const used = header.slice(0, -1).reduce((sum, title, i) => sum + 2 + Math.max(title.length, ...cells.map((row) => row[i]?.length ?? 0)), 0);
  const rows = cells.map((row, i) => [...row, truncate(response.facts[i]?.source.excerpt ?? '', Math.max(30, width - used))]);
  return [
    table(rows, header),
    style.dim(`${offset + 1}-${offset + response.facts.length} of ${total}`),
  ].join('\n');
}

function renderGraph(response: GraphResponse): string {
  if (response.nodes.length === 0) return style.dim('No entities in this graph.');
  const names = new Map(response.nodes.map((node) => [node.id, node.name]));
  const nodes = table(
    response.nodes.map((node) => [truncate(node.name, 32), node.type, String(node.mentionCount)]),
    ['NODE', 'TYPE', 'MENTIONS'],
  );
  const edges =
    response.edges.length === 0
      ? style.dim('No edges.')
      : table(
          response.edges.map((edge) => [
            truncate(names.get(edge.source) ?? edge.source, 28),
            edge.relationship,
            truncate(names.get(edge.target) ?? edge.target, 28),
            edge.strength.toFixed(2),
          ]),
          ['SOURCE', 'RELATIONSHIP', 'TARGET', 'STRENGTH'],
        );
  const types = Object.entries(response.stats.types)
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');
  return [nodes, '', edges, style.dim(`${response.stats.totalNodes} nodes, ${response.stats.totalEdges} edges (${types})`)].join('\n');
}

export function registerKnowledgeCommands(program: Command): void {
  program
    .command('entities')
    .description('List the people, companies, places... extracted from your memories')
    .addOption(choiceOption('-t, --type <type>', 'only this type', ENTITY_TYPES))
    .option('-s, --search <text>', 'names or aliases containing this (case-insensitive)')
    .addOption(choiceOption('--sort <by>', 'order', ENTITY_SORTS, 'mentions'))
    .option('-n, --limit <n>', 'entities per page', '50')
    .option('--offset <n>', 'skip this many', '0')
    .addHelpText(
      'after',
      `
Examples:
  $ mem entities --type person
  $ mem entities --search acme --json
  $ mem entities --sort recent --limit 10`,
    )
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const params = {
        type: oneOf(options.type, ENTITY_TYPES, '--type'),
        search: options.search,
        sortBy: oneOf(options.sort, ENTITY_SORTS, '--sort'),
        limit: optionalNumber(options.limit, '--limit'),
        offset: optionalNumber(options.offset, '--offset'),
      };
      const { client, output } = await clientFor(command);
      const response = await client.entities(params);
      output.result(response, () => renderEntities(response));
    });

  program
    .command('facts')
    .description('List facts extracted from your memories, with confidence, source excerpt and validity')
    .addArgument(daemonArgument('[entity]', 'facts about this entity (name, alias or id), as --entity', 'entities'))
    .addOption(daemonOption('-e, --entity <name>', 'facts about this entity (name, alias or id)', 'entities'))
    .addOption(choiceOption('-c, --category <category>', 'only this category', FACT_CATEGORIES))
    .option('--confidence <min>', 'minimum confidence 0-1')
    .option('--history', 'include facts that later ones superseded')
    .option('-n, --limit <n>', 'facts per page', '50')
    .option('--offset <n>', 'skip this many', '0')
    .addHelpText(
      'after',
      `
Examples:
  $ mem facts "Sarah Chen"
  $ mem facts --category role --confidence 0.8
  $ mem facts --entity Acme --history --json`,
    )
    .action(async (entity: string | undefined, options: Record<string, string | boolean | undefined>, command: Command) => {
      const params = {
        entity: oneEntity(entity, options.entity as string | undefined),
        category: oneOf(options.category as string | undefined, FACT_CATEGORIES, '--category'),
        confidence: optionalNumber(options.confidence as string | undefined, '--confidence'),
        includeSuperseded: options.history ? true : undefined,
        limit: optionalNumber(options.limit as string | undefined, '--limit'),
        offset: optionalNumber(options.offset as string | undefined, '--offset'),
      };
      const { client, output } = await clientFor(command);
      const response = await client.facts(params);
      output.result(response, () => renderFacts(response));
    });

  program
    .command('graph')
    .description('Show the knowledge graph around an entity (breadth-first, strongest edges first)')
    .addArgument(daemonArgument('[entity]', 'start from this entity (name, alias or id), as --entity', 'entities'))
    .addOption(daemonOption('-e, --entity <name>', 'start from this entity (name, alias or id); default: the most mentioned', 'entities'))
    .addOption(choiceOption('-t, --type <type>', 'only nodes of this type', ENTITY_TYPES))
    .option('-d, --depth <n>', 'hops from the entity, 1-3', '1')
    .option('-n, --limit <n>', 'most nodes', '50')
    .addHelpText(
      'after',
      `
Examples:
  $ mem graph "Acme Corp" --depth 2
  $ mem graph --type person --limit 20
  $ mem graph --entity "Sarah Chen" --json`,
    )
    .action(async (entity: string | undefined, options: Record<string, string | undefined>, command: Command) => {
      const params = {
        entity: oneEntity(entity, options.entity),
        type: oneOf(options.type, ENTITY_TYPES, '--type'),
        depth: optionalNumber(options.depth, '--depth'),
        limit: optionalNumber(options.limit, '--limit'),
      };
      const { client, output } = await clientFor(command);
      const response = await client.graph(params);
      output.result(response, () => renderGraph(response));
    });

  program
    .command('enrich')
    .description('Run the entity and fact extraction that a turbo save skipped')
    .addArgument(daemonArgument('[ids...]', 'memory ids', 'memories'))
    .option('--all-turbo', 'every memory saved with --turbo and not enriched since')
    .addHelpText(
      'after',
      `
Examples:
  $ mem enrich mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G
  $ mem enrich --all-turbo`,
    )
    .action(async (ids: string[], options: { allTurbo?: boolean }, command: Command) => {
      if (!options.allTurbo && ids.length === 0) {
        throw new MemError('VALIDATION_ERROR', 'Give memory ids, or --all-turbo.', { hint: 'mem enrich --all-turbo' });
      }
      const { client, output } = await clientFor(command);
      if (options.allTurbo) {
        const response = await client.enrichAllTurbo();
        output.result(response, () => response.message);
        return;
      }
      const results: EnrichResponse[] = [];
      for (const id of ids) results.push(await client.enrich(id));
      output.result(results.length === 1 ? results[0] : results, () =>
        results
          .map((status) => `${style.green('Enriched')} ${status.memoryId}: ${status.status}${status.status === 'completed' ? ` (${status.entities} entities, ${status.facts} facts)` : ''}`)
          .join('\n'),
      );
    });

  program
    .command('extract')
    .description('Extraction status of a memory, retry the extractions that failed, or extract again with the current model')
    .addArgument(daemonArgument('[id]', 'memory id: show its extraction status', 'memories'))
    .option('--retry-failed', 'run extraction again for every memory whose extraction failed')
    .option('--rerun', 'extract again, in the background, every memory another extraction model extracted (after switching models)')
    .option('--all', 'with --rerun: every standard memory, with the current model')
    .addHelpText(
      'after',
      `
Examples:
  $ mem extract mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G
  $ mem extract --retry-failed
  $ mem extract --rerun          # after switching the extraction model
  $ mem extract --rerun --all    # every memory, e.g. after an upgrade of the built-in extractor`,
    )
    .action(async (id: string | undefined, options: { retryFailed?: boolean; rerun?: boolean; all?: boolean }, command: Command) => {
      if (options.all && !options.rerun) {
        throw new MemError('VALIDATION_ERROR', '--all goes with --rerun.', { hint: 'mem extract --rerun --all' });
      }
      if (!options.retryFailed && !options.rerun && id === undefined) {
        throw new MemError('VALIDATION_ERROR', 'Give a memory id, --retry-failed or --rerun.', { hint: 'mem extract --retry-failed' });
      }
      const { client, output } = await clientFor(command);
      if (options.rerun) {
        const response = await client.rerunExtractions(options.all === true);
        output.result(response, () => (response.queued > 0 ? `${response.message}\nFollow it with: mem status` : response.message));
        return;
      }
      if (options.retryFailed) {
        const response = await client.retryExtractions();
        output.result(response, () => response.message);
        return;
      }
      const status = await client.extractionStatus(id as string);
      output.result(status, () =>
        [
          `${status.memoryId}: ${status.status === 'failed' ? style.red('failed') : status.status} (${status.model}, ${status.attempts} attempt${status.attempts === 1 ? '' : 's'})`,
          status.status === 'completed' ? `${status.entities} entities, ${status.facts} facts` : '',
          status.error ? `reason: ${status.error}` : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    });
}
