/**
 * `npm run build` (after tsc): bundles the CLI into dist/cli/main.js plus chunks that load on demand, so that
 * a command reads one file for what every command needs (commander and the registrations) and one or two
 * chunks for what it does itself (the HTTP client and its schemas, Ink, the MCP SDK...). Node spends most
 * of a short command's time resolving and compiling modules, not running them (bench/README.md, "CLI").
 *
 * The daemon is not bundled: `mem serve` imports dist/daemon/ (the tsc output), whose embedding and
 * extraction workers are files found next to the modules that spawn them. src/errors.ts stays a shared
 * file for the same reason: an error the in-process daemon throws must be the CLI's MemError for
 * `instanceof`, so both import the one module dist/src/errors.js.
 *
 * Two kinds of module are made here rather than bundled as written, so that a short command loads neither
 * zod nor every command: the checks of the daemon's answers (response-checks.mjs) and a few modules held as
 * the values they compute (EVALUATED below).
 *
 * Minified, with linked source maps: `NODE_OPTIONS=--enable-source-maps mem ...` gives stack traces in the
 * TypeScript sources.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import { responseCheckSources } from './response-checks.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
/** Loaded from the tsc output (see above), by their path relative to dist/cli/. */
const SHARED = [join(root, 'daemon'), join(root, 'src', 'errors.ts')];
/** The response checks of the client (response-checks.mjs), from the contract as tsc just built it. */
const checks = responseCheckSources(await import(join(root, 'dist', 'src', 'api', 'contract.js')));
const CHECKS_MODULE = join(root, 'src', 'client', 'response-checks.ts');
/**
 * Modules the bundle holds as their values, evaluated from the tsc output: what they compute from the config
 * schema or the whole program is then known without loading zod or every command. Their exports must be
 * JSON, the same on every machine.
 */
const EVALUATED = ['src/config/client-defaults.ts', 'src/config/value-checks.ts', 'src/cli/root-help.ts', 'src/cli/hot-command-index.ts', 'src/mcp/initialize-answers.ts'];

async function evaluatedSource(path) {
  const exports = await import(join(root, 'dist', path.replace(/\.ts$/, '.js')));
  return Object.entries(exports)
    .map(([name, value]) => {
      const json = JSON.stringify(value);
      if (json === undefined || !isDeepStrictEqual(JSON.parse(json), value)) throw new Error(`${path}: ${name} is not plain JSON`);
      return `export const ${name}=${json};`;
    })
    .join('');
}

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  // Native or optional packages: found in node_modules at run time (react-devtools-core is an optional
  // peer of Ink that Ink imports only when DEV is set).
  external: ['@lancedb/lancedb', '@napi-rs/keyring', 'react-devtools-core'],
  // Bundled CommonJS packages (commander, conf's dependencies) call require() for Node's built-ins.
  banner: { js: "import{createRequire as __memRequire}from'node:module';const require=__memRequire(import.meta.url);" },
  plugins: [
    {
      // zod's `z.locales` namespace holds its ~40 translations of error messages: 260 KB of the ~450 KB of
      // zod that every command reading a daemon response compiles. mem sets no locale (zod's English
      // default is imported directly by its schemas), so the namespace keeps English only.
      name: 'zod-english-only',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
          /[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir) ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined,
        );
        pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
          contents: "export { default as en } from 'zod/v4/locales/en.js';",
          resolveDir: root,
        }));
      },
    },
    {
      name: 'evaluated-at-build',
      setup(pluginBuild) {
        pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
          const path = relative(root, args.path).split('\\').join('/');
          return EVALUATED.includes(path) ? { contents: await evaluatedSource(path), loader: 'js' } : undefined;
        });
      },
    },
    {
      // src/client/response-checks.ts becomes a loader of the generated checks, one chunk per schema, so
      // that `mem search` reads the check of SearchResponse and nothing of the others.
      name: 'response-checks',
      setup(pluginBuild) {
        pluginBuild.onLoad({ filter: /[\\/]src[\\/]client[\\/]response-checks\.ts$/ }, (args) => {
          if (args.path !== CHECKS_MODULE) return undefined;
          const cases = [...checks.keys()].map((name) => `case ${JSON.stringify(name)}:return import(${JSON.stringify(`response-check:${name}`)}).then((m)=>m.check);`);
          return { contents: `export function loadResponseCheck(name){switch(name){${cases.join('')}default:return Promise.resolve(undefined);}}`, loader: 'js' };
        });
        pluginBuild.onResolve({ filter: /^response-check:/ }, (args) => ({ path: args.path.slice('response-check:'.length), namespace: 'response-check' }));
        pluginBuild.onLoad({ filter: /.*/, namespace: 'response-check' }, (args) => ({ contents: checks.get(args.path), loader: 'js', resolveDir: root }));
      },
    },
    {
      name: 'shared-with-daemon',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^\.{1,2}\// }, (args) => {
          const absolute = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
          const shared = SHARED.find((path) => absolute === path || absolute.startsWith(`${path}/`));
          if (!shared) return undefined;
          const built = relative(root, absolute).replace(/\.tsx?$/, '.js');
          return { path: `../${built}`, external: true };
        });
      },
    },
  ],
});
// `node scripts/bundle-cli.mjs --meta`: what each chunk holds, for a look by hand (not part of the package).
if (process.argv.includes('--meta')) writeFileSync(join(root, 'cli-meta.json'), JSON.stringify(result.metafile));
