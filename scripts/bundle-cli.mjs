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
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const EVALUATED = ['src/config/client-defaults.ts', 'src/config/value-checks.ts', 'src/cli/root-help.ts', 'src/cli/hot-command-index.ts', 'src/cli/root-options.ts', 'src/mcp/initialize-answers.ts'];

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

const zodEnglishOnly = {
  // zod's `z.locales` namespace holds its translations of error messages: most of the zod that every
  // command reading a daemon response compiles (bench/README.md, CLI start-up). mem sets no locale (zod's English
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
};
const evaluatedAtBuild = {
  name: 'evaluated-at-build',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      const path = relative(root, args.path).split('\\').join('/');
      return EVALUATED.includes(path) ? { contents: await evaluatedSource(path), loader: 'js' } : undefined;
    });
  },
};
const responseChecks = {
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
};
const sharedWithDaemon = {
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
};

/** What the three builds share: Node 20, minified, linked source maps (see above). */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  // Native or optional packages: found in node_modules at run time (react-devtools-core is an optional
  // peer of Ink that Ink imports only when DEV is set).
  external: ['@lancedb/lancedb', '@napi-rs/keyring', 'react-devtools-core'],
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  ...common,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  splitting: true,
  format: 'esm',
  // Bundled CommonJS packages (commander, conf's dependencies) call require() for Node's built-ins.
  banner: { js: "import{createRequire as __memRequire}from'node:module';const require=__memRequire(import.meta.url);" },
  plugins: [zodEnglishOnly, evaluatedAtBuild, responseChecks, sharedWithDaemon],
});

/*
 * The hot path as one CommonJS file (src/cli/hot-main.ts): Node 20 gives a V8 code cache to scripts only,
 * not to ES modules, and every file an ES module graph adds costs the loader several asynchronous steps.
 * Every import() in it becomes a require(), so that it runs as a plain script (src/cli/code-cache.ts); what
 * it needs only on a slow path is required from files of its own, next to it, so that the hot file (and its
 * cache, which grows with it) holds what a command runs: zod with the contract (an answer the build-time
 * check does not pass), the config schema (a value the plain checks cannot vouch for), conf, and each
 * response's check. They all share one src/errors.ts (errors.cjs): an error thrown in one is a MemError to
 * the others. The in-process daemon (`mem serve`) runs from main.js.
 */
const HOT_FILE = 'hot.cjs';
/** Modules the hot path imports only on a slow path, by the file each is built into. */
const COMPANIONS = { 'hot-contract': 'src/api/contract.ts', 'hot-load-config': 'src/config/load-config.ts', 'hot-conf': 'conf' };
const companionOf = new Map(Object.entries(COMPANIONS).map(([name, path]) => [path === 'conf' ? path : join(root, path), name]));
const ERRORS_MODULE = join(root, 'src', 'errors.ts');
const cjs = {
  ...common,
  format: 'cjs',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__memImportMetaUrl' },
  banner: { js: "var __memImportMetaUrl=require('node:url').pathToFileURL(__filename).href;" },
};
/** src/errors.ts from errors.cjs, in every CommonJS file. */
const sharedErrors = {
  name: 'shared-errors',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /errors\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')) === ERRORS_MODULE ? { path: './errors.cjs', external: true } : undefined,
    );
  },
};
const companions = {
  name: 'companions',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const target = args.path.startsWith('.') ? resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')) : args.path;
      const name = companionOf.get(target);
      return name === undefined ? undefined : { path: `./${name}.cjs`, external: true };
    });
  },
};
/** The answers of the commands run most (search, save --turbo, ask, __complete memories): checked in the hot file. */
const HOT_CHECKS = ['SearchResponse', 'TurboSaveResponse', 'AskResponse', 'AskDeltaEvent', 'QueryResponse'];
/**
 * The checks of HOT_CHECKS in the hot file (compiled from its code cache), each other response's check in a
 * file of its own, required when a command first needs it.
 */
const responseChecksApart = {
  name: 'response-checks-apart',
  setup(pluginBuild) {
    for (const name of HOT_CHECKS) if (!checks.has(name)) throw new Error(`HOT_CHECKS: ${name} has no check`);
    pluginBuild.onLoad({ filter: /[\\/]src[\\/]client[\\/]response-checks\.ts$/ }, (args) => {
      if (args.path !== CHECKS_MODULE) return undefined;
      const cases = [...checks.keys()].map((name) =>
        HOT_CHECKS.includes(name)
          ? `case ${JSON.stringify(name)}:return import(${JSON.stringify(`response-check:${name}`)}).then((m)=>m.check);`
          : `case ${JSON.stringify(name)}:return Promise.resolve(require(${JSON.stringify(`./checks/${name}.cjs`)}).check);`,
      );
      return { contents: `export function loadResponseCheck(name){switch(name){${cases.join('')}default:return Promise.resolve(undefined);}}`, loader: 'js' };
    });
    pluginBuild.onResolve({ filter: /^\.\/checks\// }, (args) => ({ path: args.path, external: true }));
    pluginBuild.onResolve({ filter: /^response-check:/ }, (args) => ({ path: args.path.slice('response-check:'.length), namespace: 'response-check' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'response-check' }, (args) => ({ contents: checks.get(args.path), loader: 'js', resolveDir: root }));
  },
};
/**
 * commander requires node:child_process when it loads, for the executable subcommands mem never declares;
 * loading it (and the dgram and socket modules it brings) is a few ms of every hot command. Here commander
 * gets it on first use instead.
 */
const commanderLazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (source.split(eager).length !== 2) throw new Error(`${args.path}: no longer requires node:child_process as ${eager}`);
      const lazy = "const childProcess = { spawn: (...spawnArgs) => require('node:child_process').spawn(...spawnArgs) };";
      if (!/childProcess\.spawn\(/.test(source) || /childProcess\.(?!spawn\()/.test(source)) throw new Error(`${args.path}: uses more of node:child_process than spawn`);
      return { contents: source.replace(eager, lazy), loader: 'js' };
    });
  },
};
const hot = await build({
  ...cjs,
  entryPoints: ['src/cli/hot-main.ts'],
  outfile: join(outdir, HOT_FILE),
  plugins: [evaluatedAtBuild, responseChecksApart, companions, sharedErrors, commanderLazyChildProcess],
});
for (const input of Object.keys(hot.metafile.inputs)) {
  // Only what a hot command runs: not the whole program (Ink, the MCP SDK, the daemon), nor the companions.
  if (/^(daemon\/|src\/(tui|mcp|store)\/|src\/cli\/program\.ts|src\/api\/contract\.ts|src\/config\/schema\.ts|node_modules\/(ink|react|@modelcontextprotocol|zod|conf|ajv)\/)/.test(input)) {
    throw new Error(`${HOT_FILE} holds ${input}: the hot path must not import it`);
  }
}
const hotSource = readFileSync(join(outdir, HOT_FILE), 'utf8');
if (/\bimport\(/.test(hotSource)) throw new Error(`${HOT_FILE} has an import(): it could not run as a script`);
await build({
  ...cjs,
  entryPoints: { errors: 'src/errors.ts', ...Object.fromEntries(Object.entries(COMPANIONS).map(([name, path]) => [name, path === 'conf' ? 'companion:conf' : path])) },
  outdir,
  outExtension: { '.js': '.cjs' },
  plugins: [
    zodEnglishOnly,
    sharedErrors,
    {
      name: 'conf-entry',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^companion:conf$/ }, () => ({ path: 'conf', namespace: 'companion' }));
        pluginBuild.onLoad({ filter: /.*/, namespace: 'companion' }, () => ({ contents: "export { default } from 'conf';", resolveDir: root }));
      },
    },
  ],
});
await build({
  ...cjs,
  entryPoints: Object.fromEntries([...checks.keys()].map((name) => [name, `response-check:${name}`])),
  outdir: join(outdir, 'checks'),
  outExtension: { '.js': '.cjs' },
  plugins: [
    {
      name: 'response-check-entries',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^response-check:/ }, (args) => ({ path: args.path.slice('response-check:'.length), namespace: 'response-check' }));
        pluginBuild.onLoad({ filter: /.*/, namespace: 'response-check' }, (args) => ({ contents: checks.get(args.path), loader: 'js', resolveDir: root }));
      },
    },
  ],
});

/*
 * The launcher bin/mem.js runs (src/cli/launch.ts): it knows the hot bundle's name and the hash of its
 * content (src/cli/hot-bundle.ts), which names the bundle's code cache, and imports main.js for the rest.
 */
const HOT_BUNDLE_MODULE = join(root, 'src', 'cli', 'hot-bundle.ts');
const hotBundle = { file: HOT_FILE, hash: createHash('sha256').update(hotSource).digest('hex').slice(0, 16) };
await build({
  ...cjs,
  entryPoints: ['src/cli/launch.ts'],
  outfile: join(outdir, 'launch.cjs'),
  supported: {},
  define: { ...cjs.define, 'import.meta.dirname': '__dirname' },
  plugins: [
    evaluatedAtBuild,
    {
      name: 'hot-bundle',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^\.\/main\.js$/ }, () => ({ path: './main.js', external: true }));
        pluginBuild.onLoad({ filter: /[\\/]src[\\/]cli[\\/]hot-bundle\.ts$/ }, (args) =>
          args.path === HOT_BUNDLE_MODULE ? { contents: `export const HOT_BUNDLE=${JSON.stringify(hotBundle)};`, loader: 'js' } : undefined,
        );
      },
    },
  ],
});
// `node scripts/bundle-cli.mjs --meta`: what each chunk holds, for a look by hand (not part of the package).
if (process.argv.includes('--meta')) writeFileSync(join(root, 'cli-meta.json'), JSON.stringify({ main: result.metafile, hot: hot.metafile }));
