import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, watch } from 'node:fs';
import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import { configFor, outputFor } from '../context.js';
import { rerunWithAllocatorSettings } from '../allocator.js';
import { style, table } from '../output.js';

/** For serve and daemon start, the global --host names the address to bind (as in `mem serve --host 0.0.0.0`). */
function bindAddress(options: { bind?: string }, command: Command): string | undefined {
  return options.bind ?? command.optsWithGlobals<{ host?: string }>().host;
}

function serveFlags(options: { port?: string; host?: string }): string[] {
  return [...(options.port ? ['--port', options.port] : []), ...(options.host ? ['--bind', options.host] : [])];
}

function formatUptime(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** pino's JSON lines, made readable: time, level, message, then the remaining fields. */
function prettyLogLine(line: string): string {
  try {
    const { time, level, msg, pid: _pid, hostname: _hostname, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const when = typeof time === 'number' ? new Date(time).toISOString().replace('T', ' ').slice(0, 19) : '';
    const extra = Object.keys(rest).length ? ` ${style.dim(JSON.stringify(rest))}` : '';
    return `${style.dim(when)} ${(LEVELS[Number(level)] ?? String(level)).padEnd(5)} ${String(msg ?? '')}${extra}`;
  } catch {
    return line;
  }
}

export function registerDaemonCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the daemon in the foreground (Ctrl-C stops it)')
    .option('-p, --port <port>', 'TCP port (default 7373, or MEM_PORT)')
    .option('--bind <address>', 'address to bind (default 127.0.0.1; 0.0.0.0 exposes it to your network); also --host')
    .addHelpText('after', '\nExamples:\n  $ mem serve\n  $ MEM_HOME=/tmp/x mem serve --port 7400\n  $ mem serve --host 0.0.0.0   # reachable from your network: think twice')
    .action(async (options: { port?: string; bind?: string }, command: Command) => {
      const rerun = rerunWithAllocatorSettings();
      if (rerun) {
        process.exitCode = await rerun;
        return;
      }
      const { runDaemon } = await import('../../../daemon/main.js');
      const bind = bindAddress(options, command);
      await runDaemon({
        banner: true,
        flags: {
          ...(options.port !== undefined ? { 'server.port': options.port } : {}),
          ...(bind !== undefined ? { 'server.host': bind } : {}),
        },
      });
    });

  const daemon = program
    .command('daemon')
    .description('Start, stop and inspect the background daemon')
    .addHelpText('after', '\nExamples:\n  $ mem daemon start\n  $ mem daemon status\n  $ mem daemon logs -f\n  $ mem daemon stop');

  daemon
    .command('start')
    .description('Start the daemon in the background')
    .option('-p, --port <port>', 'TCP port')
    .option('--bind <address>', 'address to bind (also --host)')
    .addHelpText('after', '\nExamples:\n  $ mem daemon start\n  $ mem daemon start --port 7400')
    .action(async (options: { port?: string; bind?: string }, command: Command) => {
      const output = outputFor(command);
      const bind = bindAddress(options, command);
      const [{ loadConfig }, { runningDaemon, startDaemonInBackground }] = await Promise.all([import('../../config/load-config.js'), import('../daemon-process.js')]);
      const loaded = loadConfig({ flags: options.port ? { 'server.port': options.port } : {} });
      const already = runningDaemon(loaded);
      const run = already ?? (await startDaemonInBackground(loaded, serveFlags({ port: options.port, host: bind })));
      output.result({ success: true, alreadyRunning: Boolean(already), ...run }, () =>
        already
          ? `mem daemon already running (pid ${run.pid}) on ${run.url}`
          : `${style.green('Started')} mem daemon (pid ${run.pid}) on ${run.url}`,
      );
    });

  daemon
    .command('stop')
    .description('Stop the daemon gracefully (drains its queues)')
    .addHelpText('after', '\nExamples:\n  $ mem daemon stop')
    .action(async (_options: unknown, command: Command) => {
      const output = outputFor(command);
      const { stopDaemon } = await import('../daemon-process.js');
      const stopped = await stopDaemon(await configFor(command));
      output.result({ success: true, stopped: Boolean(stopped), pid: stopped?.pid ?? null }, () =>
        stopped ? `${style.green('Stopped')} mem daemon (pid ${stopped.pid})` : 'No mem daemon is running.',
      );
    });

  daemon
    .command('status')
    .description('Show pid, address, version, uptime, memories, models and Ollama reachability')
    .addHelpText('after', '\nExamples:\n  $ mem daemon status\n  $ mem daemon status --json')
    .action(async (_options: unknown, command: Command) => statusAction(command));

  daemon
    .command('logs')
    .description("Print the daemon's log (-f follows it)")
    .option('-f, --follow', 'keep printing new lines')
    .option('-n, --lines <n>', 'how many of the last lines', '50')
    .addHelpText('after', '\nExamples:\n  $ mem daemon logs\n  $ mem daemon logs -f')
    .action(async (options: { follow?: boolean; lines: string }, command: Command) => {
      const loaded = await configFor(command);
      const raw = Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
      const file = loaded.paths.logFile;
      if (!existsSync(file)) throw new MemError('NOT_FOUND', `No daemon log yet at ${file}.`, { hint: 'Start the daemon first.' });
      const print = (line: string) => line && process.stdout.write(`${raw ? line : prettyLogLine(line)}\n`);
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      lines.slice(-Math.max(1, Number(options.lines) || 50)).forEach(print);
      if (!options.follow) return;
      let position = statSync(file).size;
      let partial = '';
      const readNew = () => {
        const size = statSync(file).size;
        if (size < position) position = 0; // truncated or rotated
        if (size === position) return;
        const buffer = Buffer.alloc(size - position);
        const fd = openSync(file, 'r');
        readSync(fd, buffer, 0, buffer.length, position);
        closeSync(fd);
        position = size;
        const text = partial + buffer.toString('utf8');
        const parts = text.split('\n');
        partial = parts.pop() ?? '';
        parts.forEach(print);
      };
      watch(file, readNew);
      setInterval(readNew, 1000);
      await new Promise(() => undefined);
    });

  program
    .command('status')
    .description('Same as `mem daemon status`')
    .addHelpText('after', '\nExamples:\n  $ mem status')
    .action(async (_options: unknown, command: Command) => statusAction(command));
}

async function statusAction(command: Command): Promise<void> {
  const output = outputFor(command);
  const loaded = await configFor(command);
  const [{ runningDaemon }, { readApiKey }, { MemClient }] = await Promise.all([
    import('../daemon-process.js'),
    import('../../config/credentials.js'),
    import('../../client/http-client.js'),
  ]);
  const run = runningDaemon(loaded);
  const url = loaded.config['client.url'] || run?.url || `http://127.0.0.1:${loaded.config['server.port']}`;
  const key = await readApiKey(loaded.paths);
  const client = new MemClient({ baseUrl: url, apiKey: key?.key, timeoutMs: 5000 });
  const health = await client.health().catch(() => null);
  if (!health) {
    output.result({ success: true, running: false, url }, () => `mem daemon is ${style.yellow('not running')} (looked at ${url}).\nStart it with: mem daemon start`);
    process.exitCode = 11;
    return;
  }
  const status = await client.status();
  const { loadRows } = await import('../load-rows.js');
  output.result({ running: true, ...status }, () =>
    table(
      [
        ['status', style.green('running')],
        ['address', status.address || url],
        ['pid', String(status.pid)],
        ['version', status.version],
        ['uptime', formatUptime(status.uptimeSeconds)],
        ['memories', String(status.memoryCount) + (status.vectors.missing ? style.yellow(` (${status.vectors.missing} need \`mem reindex\`)`) : '')],
        ['embedder', `${status.models.embedding.model} (${status.models.embedding.dimension}-d)`],
        ...(status.extraction
          ? [['extractor', `${status.extraction.model}${status.extraction.queued ? style.yellow(`, ${status.extraction.queued} extraction${status.extraction.queued === 1 ? '' : 's'} queued`) : ''}`] as [string, string]]
          : []),
        ['ollama', `${status.ollama.host} ${status.ollama.reachable ? style.green('reachable') : style.dim('not reachable')}`],
        ['data', status.dataDir],
        ...(status.load ? loadRows(status.load) : []),
      ],
    ),
  );
}
