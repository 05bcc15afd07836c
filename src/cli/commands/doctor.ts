import { constants } from 'node:fs';
import { access, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import type { HealthResponse, ProfileResponse, StatusResponse } from '../../api/contract.js';
import type { StoredKey } from '../../config/credentials.js';
import type { LoadedConfig } from '../../config/load-config.js';
import { MemError } from '../../errors.js';
import { VERSION } from '../../version.js';
import { configFor, outputFor } from '../context.js';
import { style } from '../output.js';

/**
 * `mem doctor`: every check a person would otherwise do by hand when something does not work, each saying
 * what to fix. Checks that need the daemon wait only for one short health call; the rest run in parallel
 * with it, so a healthy setup answers in well under a second and a dead daemon fails fast.
 */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  readonly fix?: string;
}

/** The Node.js release package.json's engines field asks for (fs.statfs, import attributes, require(esm)). */
const MIN_NODE = [20, 19, 0] as const;
const LOW_DISK_BYTES = 1024 ** 3;
const HEALTH_TIMEOUT_MS = 1500;
const REQUEST_TIMEOUT_MS = 5000;

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: MemError };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({
      ok: false as const,
      error: error instanceof MemError ? error : new MemError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error)),
    }),
  );
}

const check = (name: string, status: CheckStatus, message: string, fix?: string): DoctorCheck => ({
  name,
  status,
  message,
  ...(fix ? { fix } : {}),
});

function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

// ---- the checks --------------------------------------------------------------------------------------

function configCheck(loaded: LoadedConfig): DoctorCheck {
  const origins = Object.values(loaded.origins);
  const count = (origin: string) => origins.filter((entry) => entry === origin).length;
  const fromFile = count('file');
  const fromEnv = count('env');
  const plural = (count: number) => `${count} ${count === 1 ? 'key' : 'keys'}`;
  const parts = [
    fromFile > 0 ? `${plural(fromFile)} set in ${loaded.paths.configFile}` : `nothing set in ${loaded.paths.configFile}`,
    ...(fromEnv > 0 ? [`${plural(fromEnv)} from MEM_* variables`] : []),
  ];
  return check('config', 'ok', `${parts.join(', ')} (see \`mem config list\`)`);
}

function daemonCheck(url: string, health: Settled<HealthResponse>, status: Settled<StatusResponse> | null): DoctorCheck {
  if (health.ok) {
    const pid = status?.ok ? `, pid ${status.value.pid}` : '';
    return check('daemon', 'ok', `reachable at ${url} (version ${health.value.version}${pid})`);
  }
  if (health.error.code === 'DAEMON_UNREACHABLE') {
    return check(
      'daemon',
      'fail',
      `no daemon answers at ${url}`,
      'start it with `mem daemon start` (background) or `mem serve` (foreground); if it runs elsewhere, set MEM_HOST or `mem config set client.url <url>`',
    );
  }
  return check('daemon', 'fail', `${url} answered, but not as a mem daemon: ${health.error.message}`, 'check MEM_HOST / client.url (`mem config get client.url`)');
}

function versionCheck(health: Settled<HealthResponse>): DoctorCheck {
  if (!health.ok) return check('version', 'skip', `CLI ${VERSION}; daemon not reachable`);
  if (health.value.version === VERSION) return check('version', 'ok', `CLI and daemon are both ${VERSION}`);
  return check(
    'version',
    'fail',
    `CLI ${VERSION}, daemon ${health.value.version}`,
    'restart the daemon so it runs this version: `mem daemon stop && mem daemon start`',
  );
}

async function dataDirChecks(dir: string): Promise<[DoctorCheck, DoctorCheck]> {
  let exists = false;
  let dirCheck: DoctorCheck;
  try {
    const info = await stat(dir);
    if (!info.isDirectory()) {
      dirCheck = check('data-dir', 'fail', `${dir} is not a directory`, `move it away; mem keeps its tables in ${dir}`);
    } else {
      exists = true;
      try {
        await access(dir, constants.R_OK | constants.W_OK | constants.X_OK);
        dirCheck = check('data-dir', 'ok', `${dir} (writable)`);
      } catch {
        dirCheck = check('data-dir', 'fail', `${dir} is not writable by this user`, `fix its owner or mode, e.g. \`chmod u+rwx ${dir}\``);
      }
    }
  } catch {
    dirCheck = check('data-dir', 'fail', `${dir} does not exist`, '`mem daemon start` creates it (or set MEM_HOME if your data lives elsewhere)');
  }
  // The free space of the filesystem the directory is (or will be) on: its nearest existing ancestor.
  let probe = dir;
  if (!exists) {
    for (;;) {
      const parent = dirname(probe);
      if (await stat(parent).then(() => true, () => false)) {
        probe = parent;
        break;
      }
      if (parent === probe) break;
      probe = parent;
    }
  }
  let diskCheck: DoctorCheck;
  try {
    const info = await statfs(probe);
    const free = Number(info.bavail) * Number(info.bsize);
    diskCheck =
      free < LOW_DISK_BYTES
        ? check('disk', 'warn', `only ${formatBytes(free)} free on ${probe}`, 'free some space: LanceDB needs room to add rows and to compact tables')
        : check('disk', 'ok', `${formatBytes(free)} free on ${probe}`);
  } catch (error) {
    diskCheck = check('disk', 'warn', `cannot read the free space of ${probe}: ${(error as Error).message}`);
  }
  return [dirCheck, diskCheck];
}

/** A check that reads /v1/status, or why it could not run. */
function fromStatus(
  name: string,
  health: Settled<HealthResponse>,
  status: Settled<StatusResponse> | null,
  run: (value: StatusResponse) => DoctorCheck,
): DoctorCheck {
  if (status?.ok) return run(status.value);
  if (!health.ok) return check(name, 'skip', 'daemon not reachable');
  if (!status) return check(name, 'skip', 'needs an API key (see credentials)');
  if (status.error.code === 'UNAUTHORIZED') return check(name, 'skip', 'needs an accepted API key (see api-key)');
  return check(name, 'fail', `GET /v1/status failed: ${status.error.message}`, status.error.hint ?? 'look at `mem daemon logs`');
}

function storageCheck(status: StatusResponse): DoctorCheck {
  const where = status.storage;
  const shared = where?.shared
    ? `${where.uri} (object store, ${where.commitProbe?.safe ? `conditional writes proven at start in ${where.commitProbe.ms} ms` : 'NO conditional writes'}), a read took ${where.readMs} ms; `
    : '';
  if (where?.shared && where.commitProbe && !where.commitProbe.safe) {
    return check(
      'storage',
      'warn',
      `${shared}the daemon runs with storage.allowUnsafe`,
      'run only one daemon on this store, or move to a store with conditional writes (Azure Blob, S3, GCS)',
    );
  }
  const count = `${shared}LanceDB answers: ${status.memoryCount} ${status.memoryCount === 1 ? 'memory' : 'memories'}`;
  if (status.vectors.missing > 0) {
    return check(
      'storage',
      'warn',
      `${count}, ${status.vectors.missing} without a vector in the current embedding model (${status.models.embedding.model})`,
      'run `mem reindex` so search finds them',
    );
  }
  return check('storage', 'ok', `${count}, all with vectors`);
}

function embedderCheck(status: StatusResponse): DoctorCheck {
  const { provider, model, dimension } = status.models.embedding;
  return check('embedder', 'ok', `${provider}: ${model} (${dimension}-d)`);
}

/** Ollama names untagged models `name:latest`; the config may say either. */
const normalizeModel = (name: string) => (name.includes(':') ? name : `${name}:latest`);

interface NeededModel {
  readonly model: string;
  readonly purpose: string;
  /** A missing optional model fails only the requests that ask for it (ask --model smart), so it warns. */
  readonly required: boolean;
}

/**
 * The embedder comes from the daemon (what it really runs); answer and extraction providers are not in
 * /v1/status, so they come from this CLI's configuration (the same MEM_HOME as a local daemon).
 */
function neededModels(status: StatusResponse, loaded: LoadedConfig): NeededModel[] {
  const { config } = loaded;
  const needed: NeededModel[] = [];
  if (status.models.embedding.provider === 'ollama') {
    needed.push({ model: status.models.embedding.model.replace(/^ollama\//, ''), purpose: 'embeddings', required: true });
  }
  if (config['extraction.provider'] === 'ollama') needed.push({ model: config['ollama.extractModel'], purpose: 'extraction', required: true });
  if (config['answer.provider'] === 'ollama') {
    needed.push({ model: config['ollama.chatModel.default'], purpose: 'ask (default)', required: true });
    needed.push({ model: config['ollama.chatModel.fast'], purpose: 'ask --model fast, turbo ask', required: false });
    needed.push({ model: config['ollama.chatModel.smart'], purpose: 'ask --model smart', required: false });
  }
  return needed;
}

function ollamaCheck(status: StatusResponse, loaded: LoadedConfig): DoctorCheck {
  const { host, reachable, models } = status.ollama;
  const needed = neededModels(status, loaded);
  if (needed.length === 0) {
    return check('ollama', 'ok', `not needed: every model is built in (Ollama at ${host} is ${reachable ? `reachable, ${models.length} models` : 'not running'})`);
  }
  if (!reachable) {
    return check(
      'ollama',
      'fail',
      `not reachable at ${host}, needed for ${needed.filter((entry) => entry.required).map((entry) => entry.purpose).join(', ')}`,
      `start Ollama (\`ollama serve\`), or point mem at it with \`mem config set ollama.host <url>\` and restart the daemon`,
    );
  }
  const present = new Set(models.map(normalizeModel));
  const missing = needed.filter((entry) => !present.has(normalizeModel(entry.model)));
  const unique = (entries: NeededModel[]) => [...new Set(entries.map((entry) => entry.model))];
  const pull = (entries: NeededModel[]) => unique(entries).map((model) => `ollama pull ${model}`).join(' && ');
  const describe = (entries: NeededModel[]) => entries.map((entry) => `${entry.model} (${entry.purpose})`).join(', ');
  const missingRequired = missing.filter((entry) => entry.required);
  if (missingRequired.length > 0) return check('ollama', 'fail', `reachable at ${host}, but missing ${describe(missingRequired)}`, `\`${pull(missing)}\``);
  if (missing.length > 0) return check('ollama', 'warn', `reachable at ${host}; missing ${describe(missing)}`, `\`${pull(missing)}\` before using them`);
  return check('ollama', 'ok', `reachable at ${host}; has ${unique(needed).join(', ')}`);
}

async function credentialsCheck(loaded: LoadedConfig, stored: Settled<StoredKey | null>): Promise<DoctorCheck> {
  const file = loaded.paths.credentialsFile;
  if (!stored.ok) return check('credentials', 'fail', `cannot read the stored API key: ${stored.error.message}`, `fix or delete ${file}, then \`mem login\``);
  const mode = process.platform === 'win32' ? null : await stat(file).then((info) => info.mode & 0o777, () => null);
  const looseMode = mode !== null && mode !== 0o600;
  if (!stored.value) {
    return check(
      'credentials',
      'fail',
      `no API key in MEM_API_KEY, the OS keychain or ${file}`,
      'start the daemon once with this MEM_HOME (it stores the first key), or `mem login`',
    );
  }
  const source = stored.value.source;
  const octal = mode === null ? '' : mode.toString(8).padStart(4, '0');
  const where = { env: 'MEM_API_KEY', keychain: 'the OS keychain', file }[source];
  const modeText = mode === null ? '' : source === 'file' ? ` (mode ${octal})` : `; ${file} has mode ${octal}`;
  if (looseMode) {
    // A key file others can read is a leak when it holds the key in use, and worth tightening anyway.
    return check('credentials', source === 'file' ? 'fail' : 'warn', `key from ${where}${modeText}: others can read it`, `\`chmod 600 ${file}\``);
  }
  return check('credentials', 'ok', `key from ${where}${modeText}`);
}

function apiKeyCheck(health: Settled<HealthResponse>, stored: Settled<StoredKey | null>, profile: Settled<ProfileResponse> | null): DoctorCheck {
  if (!stored.ok || !stored.value) return check('api-key', 'skip', 'no key to try (see credentials)');
  if (!health.ok || !profile) return check('api-key', 'skip', 'daemon not reachable');
  if (profile.ok) {
    const { name, email, tier } = profile.value.profile;
    return check('api-key', 'ok', `accepted: ${name}${email ? ` <${email}>` : ''} (${tier})`);
  }
  if (profile.error.code === 'UNAUTHORIZED') {
    return check(
      'api-key',
      'fail',
      `the daemon rejects the key from ${stored.value.source}: ${profile.error.message}`,
      stored.value.source === 'env'
        ? 'unset MEM_API_KEY (to use the stored key) or set it to a key this daemon issued'
        : 'store a valid key with `mem login` (is the daemon using another MEM_HOME?)',
    );
  }
  return check('api-key', 'fail', `GET /v1/profile failed: ${profile.error.message}`, profile.error.hint ?? 'look at `mem daemon logs`');
}

function nodeCheck(): DoctorCheck {
  const version = process.versions.node;
  const parts = version.split('.').map(Number);
  let older = false;
  for (let i = 0; i < MIN_NODE.length; i++) {
    const have = parts[i] ?? 0;
    const need = MIN_NODE[i] ?? 0;
    if (have !== need) {
      older = have < need;
      break;
    }
  }
  const minimum = MIN_NODE.slice(0, 2).join('.');
  return older
    ? check('node', 'fail', `Node.js ${version} is older than ${minimum}`, `install Node.js ${minimum} or newer (22 LTS recommended)`)
    : check('node', 'ok', `Node.js ${version} (>= ${minimum})`);
}

export async function runDoctor(loaded: LoadedConfig): Promise<DoctorCheck[]> {
  const [{ resolveDaemonUrl }, { readApiKey }, { MemClient }] = await Promise.all([
    import('../../client/discovery.js'),
    import('../../config/credentials.js'),
    import('../../client/http-client.js'),
  ]);
  const { url } = resolveDaemonUrl(loaded);
  const local = isLoopback(url);
  const [health, stored, localDataDir] = await Promise.all([
    settle(new MemClient({ baseUrl: url, timeoutMs: HEALTH_TIMEOUT_MS }).health(HEALTH_TIMEOUT_MS)),
    settle(readApiKey(loaded.paths)),
    // Unless the daemon is remote, the data dir checks need no daemon: run them now with the CLI's
    // view; /v1/status may name another directory below.
    local ? dataDirChecks(loaded.paths.dataDir) : Promise.resolve(null),
  ]);
  const key = stored.ok ? stored.value?.key : undefined;
  const client = new MemClient({ baseUrl: url, apiKey: key, timeoutMs: REQUEST_TIMEOUT_MS });
  const [status, profile] = health.ok && key ? await Promise.all([settle(client.status()), settle(client.profile())]) : [null, null];

  let dataChecks: [DoctorCheck, DoctorCheck];
  const daemonDataDir = status?.ok ? status.value.dataDir : undefined;
  if (!local) {
    const where = daemonDataDir ? `${daemonDataDir} on the daemon's machine` : "the daemon's machine";
    dataChecks = [check('data-dir', 'skip', `daemon at ${url} is remote: ${where}`), check('disk', 'skip', 'daemon is remote')];
  } else if (daemonDataDir && daemonDataDir !== loaded.paths.dataDir) {
    dataChecks = await dataDirChecks(daemonDataDir);
  } else {
    dataChecks = localDataDir ?? (await dataDirChecks(loaded.paths.dataDir));
  }

  return [
    daemonCheck(url, health, status),
    versionCheck(health),
    ...dataChecks,
    fromStatus('storage', health, status, storageCheck),
    fromStatus('embedder', health, status, embedderCheck),
    fromStatus('ollama', health, status, (value) => ollamaCheck(value, loaded)),
    await credentialsCheck(loaded, stored),
    apiKeyCheck(health, stored, profile),
    nodeCheck(),
  ];
}

const SYMBOLS: Record<CheckStatus, (useColor: boolean) => string> = {
  ok: (color) => (color ? style.green('✓') : '✓'),
  warn: (color) => (color ? style.yellow('!') : '!'),
  // style.red follows stderr's terminal; the report goes to stdout, so only paint when stdout is one too.
  fail: (color) => (color ? style.red('✗') : '✗'),
  skip: (color) => (color ? style.dim('-') : '-'),
};

export function renderChecks(checks: readonly DoctorCheck[]): string {
  const color = Boolean(process.stdout.isTTY);
  const width = Math.max(...checks.map((entry) => entry.name.length));
  const lines = checks.flatMap((entry) => {
    const line = `${SYMBOLS[entry.status](color)} ${entry.name.padEnd(width)}  ${entry.status === 'skip' ? style.dim(entry.message) : entry.message}`;
    return entry.fix ? [line, `  ${' '.repeat(width)}  ${style.bold('fix:')} ${entry.fix}`] : [line];
  });
  const failed = checks.filter((entry) => entry.status === 'fail').length;
  const warned = checks.filter((entry) => entry.status === 'warn').length;
  const summary =
    failed > 0
      ? `${failed} ${failed === 1 ? 'check' : 'checks'} failed${warned ? `, ${warned} ${warned === 1 ? 'warning' : 'warnings'}` : ''}.`
      : warned > 0
        ? `No problems, ${warned} ${warned === 1 ? 'warning' : 'warnings'}.`
        : 'Everything looks good.';
  return [...lines, '', summary].join('\n');
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('Check the daemon, data dir, storage, models, Ollama, credentials and versions, and say what to fix')
    .addHelpText(
      'after',
      `
Each line is ✓ (ok), ! (warning), ✗ (failed, with a fix: line) or - (skipped). Exits 1 when a check
failed, 0 otherwise (warnings included).

Examples:
  $ mem doctor
  $ mem doctor --json
  $ MEM_HOST=http://127.0.0.1:7400 mem doctor`,
    )
    .action(async (_options: unknown, command: Command) => {
      const output = outputFor(command);
      let loaded: LoadedConfig | null = null;
      let configProblem: MemError | null = null;
      try {
        loaded = await configFor(command);
      } catch (error) {
        configProblem = error instanceof MemError ? error : new MemError('INTERNAL_ERROR', String(error));
      }
      // Without a valid configuration nothing else can be located; say so as a failed check, not a crash.
      const checks = loaded
        ? [configCheck(loaded), ...(await runDoctor(loaded))]
        : [check('config', 'fail', configProblem?.message ?? 'cannot load the configuration', configProblem?.hint ?? 'fix it with `mem config`'), nodeCheck()];
      output.result(checks, () => renderChecks(checks));
      process.exitCode = checks.some((entry) => entry.status === 'fail') ? 1 : 0;
    });
}
