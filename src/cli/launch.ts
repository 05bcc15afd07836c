import module from 'node:module';
import { join } from 'node:path';
import { commandWord, hotGroupOf } from './command-word.js';
import { earlyAnswer } from './early-answer.js';
import { HOT_BUNDLE } from './hot-bundle.js';
import { BUNDLED_GROUPS } from './hot-command-index.js';

/*
 * What bin/mem.js runs (dist/cli/launch.cjs). `--version` and `--help` off a terminal are answered here
 * (early-answer.ts); a command line the hot path has (hot-main.ts: save, search, ask, __complete...) runs
 * from one CommonJS file compiled from its V8 code cache; every other one goes to the whole CLI (main.ts,
 * ES modules loaded on demand).
 */

interface HotEntry {
  runHot(argv: readonly string[]): Promise<boolean>;
}

/** Node 22.1+ keeps the compiled code of every module itself (@types/node 20 does not declare it: Node 20 has none). */
const { enableCompileCache } = module as { enableCompileCache?: () => unknown };

async function loadHot(bundle: { readonly file: string; readonly hash: string }, word: string): Promise<HotEntry> {
  const file = join(import.meta.dirname, bundle.file);
  // Node 22.1+ caches it itself (launch() enabled that); with source maps on, require() registers the
  // bundle's map so that stack traces point at the TypeScript.
  if (enableCompileCache !== undefined || process.sourceMapsEnabled) return module.createRequire(file)(file) as HotEntry;
  // Imported here, not above: every other command line would load node:vm and node:os for nothing.
  const [{ resolvePaths }, { requireWithCodeCache }] = await Promise.all([import('../config/paths.js'), import('./code-cache.js')]);
  const prefix = `cli-${bundle.hash}-`;
  // One cache per command: each compiles other functions, and a cache holds those its first run compiled.
  const cacheFile = join(resolvePaths().cacheDir, `${prefix}${process.version}-${process.arch}-${word.replace(/[^a-z]/g, '')}.bin`);
  // Caches of other builds (and temporary files a killed run left) go when this one is written.
  const isStale = (name: string) => name.startsWith('cli-') && (!name.startsWith(prefix) || name.endsWith('.tmp'));
  return requireWithCodeCache(file, { cacheFile, isStale }) as HotEntry;
}

export async function launch(argv: readonly string[] = process.argv): Promise<void> {
  enableCompileCache?.();
  const early = await earlyAnswer(argv.slice(2));
  if (early !== undefined) {
    process.stdout.write(early);
    return;
  }
  // Chosen before anything loads: a command line the hot file does not run pays nothing for it.
  const args = argv.slice(2);
  const group = hotGroupOf(args);
  const bundled = group !== undefined && (BUNDLED_GROUPS as readonly string[]).includes(group);
  if (HOT_BUNDLE !== undefined && bundled && (await (await loadHot(HOT_BUNDLE, commandWord(args) ?? '')).runHot(argv))) return;
  const { main } = await import('./main.js');
  await main(argv);
}
