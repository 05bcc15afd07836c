import type { Command } from 'commander';
import type { AskBody, AskResponse } from '../../api/contract.js';
import { ANSWER_TIERS, REMIND_TIMEFRAMES } from '../../api/vocabulary.js';
import { MemError } from '../../errors.js';
import { choiceOption } from '../completion-values.js';
import { clientFor } from '../context.js';
import { parseList, parseNumber } from '../input.js';
import { shortDate, style, terminalWidth, truncate } from '../output.js';

type Tier = (typeof ANSWER_TIERS)[number];
type Timeframe = (typeof REMIND_TIMEFRAMES)[number];

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new MemError('VALIDATION_ERROR', `${flag} must be one of ${allowed.join(', ')} (got "${value}").`);
  }
  return value as T;
}

/** What follows a streamed answer: the sources it cites (or the whole context with --context), then a footer. */
function renderAfterAnswer(response: AskResponse, showContext: boolean): string {
  const width = terminalWidth();
  const lines: string[] = [];
  if (response.noResult) {
    if (response.suggestion) lines.push(style.dim(response.suggestion));
    return lines.join('\n');
  }
  if (showContext && response.context) {
    const cited = new Set(response.sources.map((source) => source.id));
    lines.push('', style.bold('Context'));
    for (const item of response.context) {
      lines.push(
        `  ${style.cyan(item.relevance.toFixed(2))}  ${cited.has(item.id) ? '*' : ' '} ${truncate(item.title, width - 48)}  ${style.dim(item.id)}`,
      );
    }
  } else if (response.sources.length > 0) {
    lines.push('', style.bold('Sources'));
    response.sources.forEach((source, index) => {
      lines.push(`  [${index + 1}] ${truncate(source.title, width - 40)}  ${style.dim(source.id)}`);
    });
  }
  lines.push(style.dim(`confidence ${response.confidence.toFixed(2)} · ${response.model} · ${response.tokensUsed} tokens`));
  return lines.join('\n');
}

export function registerAnswerCommands(program: Command): void {
  program
    .command('ask')
    .description('Ask a question; the answer comes from your memories only and streams as it is written')
    .argument('<question...>', 'the question, in your own words')
    .addOption(choiceOption('--model <model>', 'answer model', ANSWER_TIERS, 'default'))
    .option('--context', 'list every memory the answer could draw on, with its relevance')
    .option('-s, --space <spaceId>', 'only memories of this space')
    .option('--tags <tags>', 'only memories with any of these tags')
    .option('--after <date>', 'only memories created on or after (ISO 8601)')
    .option('--before <date>', 'only memories created on or before (ISO 8601)')
    .option('-n, --limit <n>', 'most memories to draw on (1-100)', '10')
    .option('--turbo', 'fast path: semantic search and the fast model (no filters, no streaming)')
    .addHelpText(
      'after',
      `
The answer is printed as it arrives, then the memories it cites. --json prints the whole response at once.

Examples:
  $ mem ask "When am I meeting Sarah and what about?"
  $ mem ask "What did Acme ask for?" --model smart --context --space work --tags acme --after 2026-01-01
  $ mem ask --turbo "what was that quick thought?"
  $ mem ask "Who owns the Q3 roadmap?" --json | jq -r .answer`,
    )
    .action(async (words: string[], options: Record<string, string | boolean | undefined>, command: Command) => {
      const query = words.join(' ').trim();
      const tier = oneOf<Tier>(String(options.model), ANSWER_TIERS, '--model');
      const limit = parseNumber(String(options.limit), '--limit');
      const { client, output } = await clientFor(command);

      if (options.turbo) {
        const response = await client.turboAsk({ query, limit });
        output.result(response, () =>
          [
            response.answer,
            ...(response.noResult && response.suggestion ? [style.dim(response.suggestion)] : []),
            ...(response.sources.length > 0 ? ['', style.bold('Sources'), ...response.sources.map((s, i) => `  [${i + 1}] ${truncate(s.title, 60)}  ${style.dim(s.id)}`)] : []),
            style.dim(`turbo · ${response.model} · ${response.processingTime} ms`),
          ].join('\n'),
        );
        return;
      }

      const tags = parseList(options.tags as string | undefined);
      const after = options.after as string | undefined;
      const before = options.before as string | undefined;
      const body: AskBody = {
        query,
        limit,
        model: tier,
        includeContext: Boolean(options.context),
        ...(options.space !== undefined ? { spaceId: options.space as string } : {}),
        ...(tags || after || before ? { filters: { ...(tags ? { tags } : {}), ...(after ? { after } : {}), ...(before ? { before } : {}) } } : {}),
      };
      if (output.json) {
        output.result(await client.ask(body), () => '');
        return;
      }
      let wrote = false;
      for await (const event of client.askStream(body)) {
        if (event.type === 'delta') {
          process.stdout.write(event.text);
          wrote = true;
        } else {
          if (!wrote) process.stdout.write(event.response.answer);
          process.stdout.write('\n');
          const after = renderAfterAnswer(event.response, Boolean(options.context));
          if (after) process.stdout.write(`${after}\n`);
        }
      }
    });

  program
    .command('remind')
    .description('Recall memories relevant to what you are doing, with the reason for each')
    .argument('<context...>', 'what you are working on (at least 10 characters)')
    .addOption(choiceOption('--timeframe <when>', 'memories saved when (today: since 00:00 UTC, week: 7 days, month: 30 days)', REMIND_TIMEFRAMES, 'all'))
    .option('-n, --limit <n>', 'most reminders (1-100)', '5')
    .option('--threshold <score>', 'minimum relevance 0-1', '0.6')
    .addHelpText(
      'after',
      `
Examples:
  $ mem remind "Preparing the quarterly review with Acme" --timeframe month
  $ mem remind "Call with Sarah Chen about the roadmap" --limit 3 --threshold 0.5
  $ mem remind "Planning the trip to Berlin" --json`,
    )
    .action(async (words: string[], options: Record<string, string | undefined>, command: Command) => {
      const timeframe = oneOf<Timeframe>(String(options.timeframe), REMIND_TIMEFRAMES, '--timeframe');
      const { client, output } = await clientFor(command);
      const response = await client.remind({
        context: words.join(' '),
        timeframe,
        limit: parseNumber(String(options.limit), '--limit'),
        threshold: parseNumber(String(options.threshold), '--threshold'),
      });
      output.result(response, () => {
        if (response.reminders.length === 0) return style.dim('Nothing to remind you of (lower --threshold or widen --timeframe).');
        const width = terminalWidth();
        return response.reminders
          .map(
            (reminder) =>
              `${style.cyan(reminder.relevance.toFixed(2))}  ${style.bold(truncate(reminder.title, width - 50))}  ${style.dim(reminder.id)}\n` +
              `      ${reminder.reason}\n      ${style.dim(`${shortDate(reminder.createdAt)} · ${truncate(reminder.content, width - 30)}`)}`,
          )
          .join('\n');
      });
    });
}
