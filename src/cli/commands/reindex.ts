import type { Command } from 'commander';
import { clientFor } from '../context.js';
import { style } from '../output.js';

export function registerReindexCommand(program: Command): void {
  program
    .command('reindex')
    .description('Re-embed memories with the current embedding model (after switching models)')
    .option('--all', 're-embed every memory, not only those without vectors')
    .option('--no-wait', 'print the job id and return')
    .addHelpText('after', '\nExamples:\n  $ MEM_EMBEDDER=ollama mem daemon start && mem reindex\n  $ mem reindex --all --no-wait --json')
    .action(async (options: { all?: boolean; wait: boolean }, command: Command) => {
      const { client, output } = await clientFor(command);
      const started = await client.reindex(Boolean(options.all));
      if (!options.wait || started.total === 0) {
        output.result(started, () => `${started.message}${started.total ? ` Job ${started.jobId}` : ''}`);
        return;
      }
      let job = await client.job(started.jobId);
      while (job.status === 'pending' || job.status === 'processing') {
        if (process.stderr.isTTY && !output.json) {
          process.stderr.write(`\rReindexing ${job.progress.completed + job.progress.failed}/${job.progress.total} (${job.progress.percentage}%)`);
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
        job = await client.job(started.jobId);
      }
      if (process.stderr.isTTY && !output.json) process.stderr.write('\n');
      output.result(job, () =>
        `${style.green('Reindexed')} ${job.progress.completed} memories${job.progress.failed ? `, ${job.progress.failed} failed` : ''}`,
      );
    });
}
