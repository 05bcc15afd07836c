import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
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
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`azurite exited (${child.exitCode}): ${stderr}`);
    const up = await fetch(`${endpoint}?comp=list`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`azurite did not start: ${stderr}`);
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
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(location, { recursive: true, force: true });
    },
  };
}

/** One Shared Key signed `Create Container` call (the REST API; no SDK needed for a single request). */
async function createContainer(endpoint: string, name: string): Promise<void> {
  const date = new Date().toUTCString();
  const version = '2021-08-06';
  const canonicalHeaders = `x-ms-date:${date}\nx-ms-version:${version}\n`;
  const canonicalResource = `/${AZURITE_ACCOUNT}/${AZURITE_ACCOUNT}/${name}\nrestype:container`;
  // VERB, Content-Encoding, -Language, -Length, -MD5, -Type, Date, If-Modified-Since, If-Match, If-None-Match,
  // If-Unmodified-Since, Range, then the x-ms headers and the resource.
  const toSign = `PUT\n\n\n\n\n\n\n\n\n\n\n\n${canonicalHeaders}${canonicalResource}`;
  const signature = createHmac('sha256', Buffer.from(AZURITE_KEY, 'base64')).update(toSign, 'utf8').digest('base64');
  const response = await fetch(`${endpoint}/${name}?restype=container`, {
    method: 'PUT',
    headers: { 'x-ms-date': date, 'x-ms-version': version, authorization: `SharedKey ${AZURITE_ACCOUNT}:${signature}` },
  });
  if (response.status !== 201 && response.status !== 409) throw new Error(`create container ${name}: ${response.status} ${await response.text()}`);
}
