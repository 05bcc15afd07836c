import type { Command } from 'commander';
import type { UsageResponse } from '../../api/contract.js';
import { USAGE_BREAKDOWNS, USAGE_PERIODS } from '../../api/vocabulary.js';
import { choiceOption } from '../completion-values.js';
import { clientFor } from '../context.js';
import { style, table } from '../output.js';

const BAR_WIDTH = 24;

/** A bar of block characters, proportional to value / max. */
function bar(value: number, max: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * BAR_WIDTH * 8));
  const full = Math.floor(eighths / 8);
  const partial = eighths % 8;
  return '█'.repeat(full) + (partial ? (['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'][partial] ?? '') : '');
}

const unlimited = (value: number) => (value < 0 ? 'unlimited' : value.toLocaleString('en-US'));

function renderUsage(usage: UsageResponse['usage']): string {
  const { summary, limits, storage } = usage;
  const lines = [
    `${style.bold('Usage')} (${usage.period}, ${usage.mode} keys) ${style.dim(`${usage.startDate.slice(0, 10)} to ${usage.endDate.slice(0, 10)}`)}`,
    `  requests   ${summary.totalRequests.toLocaleString('en-US')}  (${summary.successfulRequests} ok, ${summary.failedRequests} failed), average ${summary.averageLatencyMs} ms`,
    `  limits     ${unlimited(limits.requestsPerHour)}/hour, ${unlimited(limits.monthlyRequests)}/month; ${limits.usedPercentage}% of this month used`,
    `  storage    ${storage.memoryCount.toLocaleString('en-US')} memories, ${storage.totalSizeMb} MB of ${storage.limitMb < 0 ? 'unlimited' : `${storage.limitMb} MB`} (${storage.usedPercentage}%)`,
  ];
  if (usage.byEndpoint) {
    const max = Math.max(0, ...usage.byEndpoint.map((row) => row.requests));
    lines.push(
      '',
      table(
        usage.byEndpoint.map((row) => [row.method, row.endpoint, String(row.requests), `${row.percentage}%`, `${row.avgLatencyMs} ms`, style.cyan(bar(row.requests, max))]),
        ['METHOD', 'ENDPOINT', 'REQUESTS', 'SHARE', 'AVG', ''],
      ),
    );
  }
  if (usage.daily) {
    const max = Math.max(0, ...usage.daily.map((row) => row.requests));
    lines.push(
      '',
      table(
        usage.daily.map((row) => [row.date, String(row.requests), String(row.successful), String(row.failed), style.cyan(bar(row.requests, max))]),
        ['DATE', 'REQUESTS', 'OK', 'FAILED', ''],
      ),
    );
  }
  if (usage.byKey) {
    const max = Math.max(0, ...usage.byKey.map((row) => row.requests));
    lines.push(
      '',
      table(
        usage.byKey.map((row) => [row.keyId, row.name, row.type, String(row.requests), String(row.failed), `${row.avgLatencyMs} ms`, style.cyan(bar(row.requests, max))]),
        ['KEY', 'NAME', 'TYPE', 'REQUESTS', 'FAILED', 'AVG', ''],
      ),
    );
  }
  return lines.join('\n');
}

export function registerAccountCommands(program: Command): void {
  program
    .command('usage')
    .description('Show request and storage usage of your account')
    .addOption(choiceOption('--period <period>', 'the period counted', USAGE_PERIODS, 'month'))
    .addOption(choiceOption('--breakdown <by>', 'requests per endpoint, day or key', USAGE_BREAKDOWNS))
    .addHelpText(
      'after',
      '\nExamples:\n  $ mem usage\n  $ mem usage --period week --breakdown endpoint\n  $ mem usage --period month --breakdown day --json',
    )
    .action(async (options: { period: string; breakdown?: string }, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.usage({
        period: options.period as 'month',
        ...(options.breakdown ? { breakdown: options.breakdown as 'endpoint' } : {}),
      });
      output.result(response.usage, () => renderUsage(response.usage));
    });

  const profile = program
    .command('profile')
    .description('Show your profile: plan, limits, current usage and settings')
    .addHelpText('after', '\nExamples:\n  $ mem profile\n  $ mem profile set --timezone Europe/Berlin --default-space work')
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const { profile: p } = await client.profile();
      output.result(p, () =>
        [
          `${style.bold(p.name || '(no name)')} ${p.email ? `<${p.email}>` : ''}${p.company ? `, ${p.company}` : ''}`,
          `  id         ${p.id}`,
          `  plan       ${p.tier}, since ${p.createdAt.slice(0, 10)}`,
          `  settings   time zone ${p.settings.timezone}, default space ${p.settings.defaultSpace || '(none)'}, language ${p.settings.language}`,
          `  requests   ${p.currentUsage.monthlyRequests.toLocaleString('en-US')} this month of ${unlimited(p.limits.monthlyRequests)}; ${unlimited(p.limits.requestsPerHour)}/hour`,
          `  storage    ${p.currentUsage.memoryCount.toLocaleString('en-US')} of ${unlimited(p.limits.maxMemories)} memories, ${p.currentUsage.storageMb} MB of ${p.limits.maxStorageMb < 0 ? 'unlimited' : `${p.limits.maxStorageMb} MB`}`,
        ].join('\n'),
      );
    });

  profile
    .command('set')
    .description('Change your name, company or settings')
    .option('--name <name>', 'display name')
    .option('--company <company>', 'company')
    .option('--timezone <zone>', 'IANA time zone, e.g. Europe/Berlin (dates and usage days use it)')
    .option('--default-space <space>', 'space for saves that name none ("" for none)')
    .option('--language <tag>', 'language tag, e.g. en or de')
    .addHelpText('after', '\nExamples:\n  $ mem profile set --timezone Europe/Berlin --default-space work\n  $ mem profile set --company "Acme Corp"')
    .action(async (options: Record<string, string | undefined>, command: Command) => {
      const { client, output } = await clientFor(command);
      const settings = {
        ...(options.timezone !== undefined ? { timezone: options.timezone } : {}),
        ...(options.defaultSpace !== undefined ? { defaultSpace: options.defaultSpace } : {}),
        ...(options.language !== undefined ? { language: options.language } : {}),
      };
      const response = await client.updateProfile({
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.company !== undefined ? { company: options.company } : {}),
        ...(Object.keys(settings).length > 0 ? { settings } : {}),
      });
      output.result(response.profile, () => `${style.green('Updated')} your profile.`);
    });
}
