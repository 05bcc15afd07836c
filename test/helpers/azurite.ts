import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './cli.js';

/** Azurite's published development account (the same in every emulator; not a secret). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface Azurite {
  readonly port: number;
  readonly endpoint: string;
  /** The environment a daemon needs to reach it (the standard Azure variables LanceDB reads). */
  readonly env: NodeJS.ProcessEnv;
  /** Creates a blob container (LanceDB writes into an existing one). */
  createContainer(name: string): Promise<void>;
  stop(): Promise<void>;
}

function azuriteBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'blob', 'main.js');
}

/** Starts Azurite's blob service on 127.0.0.1 with a free port and telemetry off; data in a temp dir. */
export async function startAzurite(): Promise<Azurite> {
  const port = await freePort();
  const location = mkdtempSync(join(tmpdir(), 'mem-azurite-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [azuriteBin(), '--location', location, '--blobHost', '127.0.0.1', '--blobPort', String(port), '--loose', '--skipApiVersionCheck', '--silent', '--disableTelemetry'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Never outlive the process that started it (a test run that fails before stop() is called).
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`azurite exited (${child.exitCode}): ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`azurite did not start: ${stderr}`);
    }
    const up = await fetch(`${endpoint}?comp=list`).then(
      () => true,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    endpoint,
    env: {
      AZURE_STORAGE_ACCOUNT_NAME: AZURITE_ACCOUNT,
      AZURE_STORAGE_ACCOUNT_KEY: AZURITE_KEY,
      AZURE_STORAGE_USE_EMULATOR: 'true',
      AZURITE_BLOB_STORAGE_URL: `http://127.0.0.1:${port}`,
      AZURE_ALLOW_HTTP: 'true',
    },
    createContainer: (name) => createContainer(endpoint, name),
    async stop() {
      process.off('exit', orphanGuard);
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(location, { recursive: true, force: true });
    },
  };
}

/**
 * One Shared Key signed `Create Container` call (the REST API; no SDK needed for a single request), against
 * an emulator's endpoint (`http://127.0.0.1:<port>/devstoreaccount1`). Creating an existing one is fine.
 */
export async function createContainer(endpoint: string, name: string): Promise<void> {
  const url = new URL(`${endpoint}/${name}?restype=container`);
  const headers: Record<string, string> = { 'x-ms-date': new Date().toUTCString(), 'x-ms-version': '2021-08-06' };
  headers.authorization = sharedKey('PUT', url, headers);
  const response = await fetch(url, { method: 'PUT', headers });
  if (response.status !== 201 && response.status !== 409) throw new Error(`create container ${name}: ${response.status} ${await response.text()}`);
}

const SIGNED_HEADERS = [
  'content-encoding',
  'content-language',
  'content-length',
  'content-md5',
  'content-type',
  'date',
  'if-modified-since',
  'if-match',
  'if-none-match',
  'if-unmodified-since',
  'range',
] as const;

/** The Shared Key `Authorization` value of a request to the emulator, computed as Azurite checks it. */
function sharedKey(method: string, url: URL, headers: Readonly<Record<string, string>>): string {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const standard = SIGNED_HEADERS.map((name) => (name === 'content-length' && lower[name] === '0' ? '' : (lower[name] ?? '')));
  const canonicalHeaders = Object.keys(lower)
    .filter((name) => name.startsWith('x-ms-'))
    .sort()
    .map((name) => `${name}:${(lower[name] ?? '').trimStart()}\n`)
    .join('');
  const query = [...url.searchParams.keys()]
    .map((name) => name.toLowerCase())
    .sort()
    .map((name) => `\n${name}:${url.searchParams.getAll(name).join(',')}`)
    .join('');
  const toSign = `${[method.toUpperCase(), ...standard].join('\n')}\n${canonicalHeaders}/${AZURITE_ACCOUNT}${decodeURIComponent(url.pathname)}${query}`;
  return `SharedKey ${AZURITE_ACCOUNT}:${createHmac('sha256', Buffer.from(AZURITE_KEY, 'base64')).update(toSign, 'utf8').digest('base64')}`;
}

/**
 * A test double of an object store WITHOUT conditional writes: a proxy in front of Azurite that drops
 * `If-None-Match: *` (create-if-absent) and signs the request again, so a second create of one object
 * overwrites the first, as on s3rver. Point a daemon at it with its `env`.
 */
export async function startUnconditionalProxy(azurite: Azurite): Promise<{ env: NodeJS.ProcessEnv; stop(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(request.url ?? '/', `http://127.0.0.1:${azurite.port}`);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value === undefined || name === 'host' || name === 'authorization' || name === 'connection') continue;
        headers[name] = Array.isArray(value) ? value.join(',') : value;
      }
      if (headers['if-none-match'] === '*') delete headers['if-none-match'];
      headers['content-length'] = String(body.length);
      headers.authorization = sharedKey(request.method ?? 'GET', url, headers);
      const upstream = httpRequest(url, { method: request.method, headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', () => response.writeHead(502).end());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    env: { ...azurite.env, AZURITE_BLOB_STORAGE_URL: `http://127.0.0.1:${port}` },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
