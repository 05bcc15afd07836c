import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The ONLY module that decides where files live. XDG base directories by default; `MEM_HOME=<dir>` puts
 * config, data and state under one directory (handy for tests and for running several daemons).
 */
export interface MemPaths {
  readonly configDir: string;
  readonly dataDir: string;
  readonly stateDir: string;
  /** What can be rebuilt at any time and deleted freely: the CLI's compiled code (src/cli/code-cache.ts). */
  readonly cacheDir: string;
  readonly configFile: string;
  readonly credentialsFile: string;
  readonly runFile: string;
  readonly pidFile: string;
  readonly logFile: string;
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env): MemPaths {
  const memHome = env.MEM_HOME?.trim();
  let configDir: string;
  let dataDir: string;
  let stateDir: string;
  let cacheDir: string;
  if (memHome) {
    const root = resolve(memHome);
    configDir = join(root, 'config');
    dataDir = join(root, 'data');
    stateDir = join(root, 'state');
    cacheDir = join(root, 'cache');
  } else {
    const home = homedir();
    configDir = join(env.XDG_CONFIG_HOME?.trim() || join(home, '.config'), 'mem');
    dataDir = join(env.XDG_DATA_HOME?.trim() || join(home, '.local', 'share'), 'mem');
    stateDir = join(env.XDG_STATE_HOME?.trim() || join(home, '.local', 'state'), 'mem');
    cacheDir = join(env.XDG_CACHE_HOME?.trim() || join(home, '.cache'), 'mem');
  }
  return {
    configDir,
    dataDir,
    stateDir,
    cacheDir,
    configFile: join(configDir, 'config.json'),
    credentialsFile: join(configDir, 'credentials.json'),
    runFile: join(stateDir, 'daemon.json'),
    pidFile: join(stateDir, 'daemon.pid'),
    logFile: join(stateDir, 'daemon.log'),
  };
}

/** Default LanceDB location: a local path under the data dir (config `storage.uri` may name another URI). */
export function defaultStorageUri(paths: MemPaths): string {
  return join(paths.dataDir, 'lancedb');
}
