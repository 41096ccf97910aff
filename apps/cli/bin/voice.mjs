#!/usr/bin/env node
// The `voice` command: the compiled CLI (`pnpm build`). From a checkout without a build, `pnpm voice`
// at the repository root runs the same program from its sources.
import '../dist/main.js';
