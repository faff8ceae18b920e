// The project's Node.js: one version, in one place, the root package.json's `devDependencies.node`
// (the npm registry's `node` package: `pnpm install` puts that runtime in node_modules/.bin/node,
// and `pnpm run` puts node_modules/.bin first on PATH, so every script, turbo task, test and
// server runs on it whatever Node the machine has). This module says whether the running Node is
// that one or newer, and stops with a clear message when it is older: a script started by hand
// with the machine's own `node`, or an install that did not put node_modules/.bin/node in place
// (`--ignore-scripts`, or `node` missing from pnpm-workspace.yaml's allowBuilds).
//
//   node scripts/check-node.mjs   prints "Node v26.10.0 (<path>)", or the message and exit code 1
//
// scripts/start.mjs calls requireProjectNode() first; .ci/run runs this file through pnpm.
// Plain JavaScript that any Node since 14 parses, so an old runtime gets the message, not a crash.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The project's Node.js version, e.g. "26.10.0" (package.json devDependencies.node, exact). */
export const projectNode = pkg.devDependencies.node;

const parts = (version) => version.replace(/^v/, '').split('.').map(Number);

/** Whether `version` (e.g. process.version) is older than the project's Node. */
export function olderThanProject(version) {
  const [a, b] = [parts(version), parts(projectNode)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** Exit 1 with a message naming `what`, this runtime and the project's when this Node is older. */
export function requireProjectNode(what) {
  if (!olderThanProject(process.version)) return;
  process.stderr.write(
    [
      `${what} is running on Node ${process.version} (${process.execPath}), older than the project's Node ${projectNode}`,
      "(package.json devDependencies.node). Run it through pnpm, which puts the project's Node first on PATH:",
      '  npx -y pnpm@12 install && npx -y pnpm@12 run <script>',
      'If it already ran through pnpm, node_modules/.bin/node is missing or broken: install again, without',
      '--ignore-scripts (pnpm-workspace.yaml allowBuilds lets the node package install its runtime).',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  requireProjectNode('scripts/check-node.mjs');
  process.stdout.write(`Node ${process.version} (${process.execPath})\n`);
}
