#!/usr/bin/env node
// CommonJS (bin/package.json): a command that runs from the hot path never starts Node's ES module loader.
require('../dist/cli/launch.cjs').launch();
