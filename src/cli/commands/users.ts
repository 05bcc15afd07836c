import type { Command } from 'commander';
import { confirm } from '../confirm.js';
import { choiceArgument, choiceOption, daemonArgument } from '../completion-values.js';
import { clientFor } from '../context.js';
import { style, table } from '../output.js';

const TIERS = ['free', 'pro', 'enterprise'];

export function registerUserCommands(program: Command): void {
  const users = program
    .command('users')
    .description("Manage the daemon's users and their plans (owner only)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ mem users add --email ana@example.org --name Ana --tier pro\n  $ mem users list\n  $ mem users set-tier usr_01JD... enterprise\n  $ mem users remove usr_01JD... --yes',
    );

  users
    .command('list')
    .alias('ls')
    .description('List users')
    .addHelpText('after', '\nExamples:\n  $ mem users list --json')
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.listUsers();
      output.result(response.users, () =>
        table(
          response.users.map((user) => [user.id, user.email || '-', user.name, user.tier + (user.isOwner ? ' (owner)' : ''), user.createdAt.slice(0, 10)]),
          ['ID', 'EMAIL', 'NAME', 'PLAN', 'CREATED'],
        ),
      );
    });

  users
    .command('add')
    .description("Create a user; prints their first API key once")
    .requiredOption('--email <email>', 'email address (unique)')
    .requiredOption('--name <name>', 'display name')
    .option('--company <company>', 'company')
    .addOption(choiceOption('--tier <tier>', 'plan', TIERS, 'free'))
    .addHelpText('after', '\nExamples:\n  $ mem users add --email ana@example.org --name Ana --tier pro')
    .action(async (options: { email: string; name: string; company?: string; tier: string }, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.createUser({
        email: options.email,
        name: options.name,
        tier: options.tier as 'free',
        ...(options.company !== undefined ? { company: options.company } : {}),
      });
      output.result(response, () =>
        [
          `${style.green('Created')} ${response.data.id} (${response.data.email}, ${response.data.tier})`,
          `Their API key: ${response.key.key}`,
          style.dim(`Give it to them now: it is not shown again. They log in with \`mem login\`.`),
        ].join('\n'),
      );
    });

  users
    .command('set-tier')
    .description("Change a user's plan")
    .addArgument(daemonArgument('<id>', 'user id', 'users'))
    .addArgument(choiceArgument('<tier>', 'the new plan', TIERS))
    .addHelpText('after', '\nExamples:\n  $ mem users set-tier usr_01JD3V6Q8X4Z5C2B7N9M0K1H2G pro')
    .action(async (id: string, tier: string, _options: unknown, command: Command) => {
      const { client, output } = await clientFor(command);
      const response = await client.updateUser(id, { tier: tier as 'free' });
      output.result(response.data, () => `${style.green('Updated')} ${id}: plan ${response.data.tier}`);
    });

  users
    .command('remove')
    .alias('rm')
    .description('Remove a user with all their keys and data, permanently')
    .addArgument(daemonArgument('<id>', 'user id', 'users'))
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  $ mem users remove usr_01JD3V6Q8X4Z5C2B7N9M0K1H2G --yes')
    .action(async (id: string, options: { yes?: boolean }, command: Command) => {
      await confirm(`Remove user ${id} with all their keys and memories?`, options);
      const { client, output } = await clientFor(command);
      const response = await client.removeUser(id);
      output.result(response, () => `${style.green('Removed')} ${id}`);
    });
}
