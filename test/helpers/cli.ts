import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa, type Options } from 'execa';

export const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'mem.js');

/** Runs the built `mem` binary (`node bin/mem.js`, never npx: npm prints warnings on stderr). */
export interface CliResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function mem(args: readonly string[], env: NodeJS.ProcessEnv, options: Options = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [BIN, ...args], {
    env: { ...env, FORCE_COLOR: '0' },
    extendEnv: true,
    reject: false,
    timeout: 60_000,
    cwd: ROOT,
    ...options,
  });
  return { exitCode: result.exitCode ?? 1, stdout: String(result.stdout ?? ''), stderr: String(result.stderr ?? '') };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function json<T = Record<string, unknown>>(result: CliResult): T {
  return JSON.parse(result.stdout) as T;
}
