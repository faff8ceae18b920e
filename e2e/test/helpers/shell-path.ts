import { delimiter, sep } from 'node:path';

/**
 * PATH as a person's shell has it: this test run's PATH without the node_modules/.bin directories
 * pnpm put first. A test that runs the README's commands (`npx -y pnpm@12 ...`) with it runs npx
 * and pnpm on the machine's Node, as a person does, and pnpm puts the project's Node first again
 * for the script. With the project's Node first, npx would run on it, and npm there does not read
 * the machine's global npmrc (its cafile): docs/operations.md, "The Node.js version".
 */
export function shellPath(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !dir.split(sep).includes('node_modules'))
    .join(delimiter);
}
