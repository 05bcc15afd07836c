import type { Command } from 'commander';
import { confirm } from '../confirm.js';
import { MemError } from '../../errors.js';
import type { MemClient } from '../../client/http-client.js';
import { daemonArgument } from '../completion-values.js';
import { clientFor, configFor, outputFor } from '../context.js';
import { parseNumber } from '../input.js';
import { shortDate, style, table } from '../output.js';

/** Whether `id` is the key this CLI authenticates with (GET /keys marks the caller's key as current). */
async function isCliKey(client: MemClient, id: string): Promise<boolean> {
  const { keys } = await client.listKeys();
  return keys.some((key) => key.id === id && key.current === true);
}

export function registerKeyCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('Manage API keys')
    .addHelpText('after', '\nExamples:\n  $ mem keys list\n  $ mem keys create --name laptop-app --json\n  $ mem keys delete key_01JD...');

  keys
    .command('list')
    .alias('ls')
    .description('List API keys (values redacted)')
    .addHelpText('after', '\nExamples:\n  $ mem keys list')
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.listKeys();
      output.result(response, () =>
        table(
          response.keys.map((key) => [
            (key.current ? '* ' : '  ') + key.id,
            key.name,
            key.type + (key.readOnly ? ' (read-only)' : ''),
            key.key,
            `${key.rateLimitPerHour ?? '-'}/h, ${key.monthlyLimit ?? '-'}/mo`,
            shortDate(key.createdAt),
            key.lastUsedAt ? shortDate(key.lastUsedAt) : '-',
            key.expiresAt ? shortDate(key.expiresAt) : 'never',
          ]),
          ['  ID', 'NAME', 'TYPE', 'KEY', 'LIMITS', 'CREATED', 'LAST USED', 'EXPIRES'],
        ),
      );
    });

  keys
    .command('create')
    .description('Create a key; its value is printed once')
    .requiredOption('--name <name>', 'a name to recognise it by')
    .option('--test', 'a test key (svc_test_) instead of live')
    .option('--rate-limit <n>', 'requests per hour')
    .option('--monthly-limit <n>', 'requests per month')
    .option('--expires <date>', 'expiry date (ISO 8601)')
    .option('--read-only', 'can read and search but not write')
    .addHelpText('after', '\nExamples:\n  $ mem keys create --name laptop-app\n  $ mem keys create --name ci --test --expires 2027-01-01 --json')
    .action(async (options: Record<string, string | boolean | undefined>, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.createKey({
        name: String(options.name),
        type: options.test ? 'test' : 'live',
        ...(options.rateLimit ? { rateLimitPerHour: parseNumber(String(options.rateLimit), '--rate-limit') } : {}),
        ...(options.monthlyLimit ? { monthlyLimit: parseNumber(String(options.monthlyLimit), '--monthly-limit') } : {}),
        ...(options.expires ? { expiresAt: String(options.expires) } : {}),
        readOnly: Boolean(options.readOnly),
      });
      output.result(response.data, () => `${style.green('Created')} ${response.data.id} (${response.data.name})\n${response.data.key}\n${style.dim('Store it now: it is not shown again.')}`);
    });

  keys
    .command('regenerate')
    .description('Issue a new value for a key; the old one stops working at once')
    .addArgument(daemonArgument('<id>', 'key id', 'keys'))
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  $ mem keys regenerate key_01JD3V6Q8X4Z5C2B7N9M0K1H2G --yes')
    .action(async (id: string, options: { yes?: boolean }, command: Command) => {
      await confirm(`Regenerate key ${id}? Programs using its current value stop working at once.`, options);
      const { client, output, loaded } = await clientFor(command);
      const own = await isCliKey(client, id);
      const response = await client.regenerateKey(id);
      // The CLI's own key: keep the CLI working by storing the new value (unless it came from MEM_API_KEY).
      const { writeApiKey } = await import('../../config/credentials.js');
      const stored = own && !process.env.MEM_API_KEY ? await writeApiKey(loaded.paths, response.data.key) : null;
      output.result({ ...response.data, storedForCli: stored !== null }, () =>
        [
          `${style.green('Regenerated')} ${response.data.id}`,
          response.data.key,
          stored
            ? style.dim('This is the key the CLI uses: the new value is stored for it. Store it elsewhere now too: it is not shown again.')
            : own
              ? style.yellow('This is the key in MEM_API_KEY: set MEM_API_KEY to the new value (or run `mem login`).')
              : style.dim('Store it now: it is not shown again.'),
        ].join('\n'),
      );
    });

  keys
    .command('delete')
    .alias('rm')
    .description('Delete a key permanently')
    .addArgument(daemonArgument('<id>', 'key id', 'keys'))
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  $ mem keys delete key_01JD3V6Q8X4Z5C2B7N9M0K1H2G --yes')
    .action(async (id: string, options: { yes?: boolean }, command: Command) => {
      await confirm(`Delete key ${id} permanently?`, options);
      const { client, output } = await clientFor(command);
      const own = await isCliKey(client, id);
      const response = await client.deleteKey(id);
      output.result({ ...response, wasCliKey: own }, () =>
        [
          `${style.green('Deleted')} ${id}`,
          ...(own ? [style.yellow('That was the key the CLI uses: log in with another key (`mem login`), or create one first.')] : []),
        ].join('\n'),
      );
    });

  program
    .command('token')
    .description("Print the CLI's API key (for curl and other programs)")
    .addHelpText('after', '\nExamples:\n  $ curl -H "Authorization: Bearer $(mem token)" localhost:7373/v1/memories')
    .action(async (_options: unknown, command: Command) => {
      const output = outputFor(command);
      const { readApiKey } = await import('../../config/credentials.js');
      const stored = await readApiKey((await configFor(command)).paths);
      if (!stored) {
        throw new MemError('UNAUTHORIZED', 'No API key is stored for the CLI.', {
          hint: 'Start the daemon once (`mem daemon start`) to create one, or set MEM_API_KEY.',
        });
      }
      output.result({ key: stored.key, source: stored.source }, () => stored.key);
    });
}
