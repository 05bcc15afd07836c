#!/usr/bin/env node
import module from 'node:module';

// Node 22.1+ keeps V8's compiled code of the bundle between runs; Node 20 has no such cache.
module.enableCompileCache?.();

const { main } = await import('../dist/cli/main.js');
await main();
