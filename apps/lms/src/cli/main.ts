#!/usr/bin/env node
// The admin CLI's entry point (bin "lms-admin"): `pnpm run lms-admin <command>` at the repo root.
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2));
