import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Advisory lock id serialising demo seeding (two instances starting on one empty PostgreSQL). */
export const DEMO_SEED_LOCK_ID = 727_002;

/**
 * The demo teacher's API key in clear, kept next to the embedded database so the one-command
 * start can show it on every start (the database stores only its hash). Embedded mode only.
 */
export function demoKeyFile(dataDir: string): string {
  return join(dataDir, 'demo-api-key.txt');
}

export async function saveDemoKey(dataDir: string, key: string): Promise<string> {
  const file = demoKeyFile(dataDir);
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  // writeFile's mode applies only to a new file.
  await chmod(file, 0o600);
  return file;
}

export async function readDemoKey(dataDir: string): Promise<string | null> {
  try {
    const key = (await readFile(demoKeyFile(dataDir), 'utf8')).trim();
    return key === '' ? null : key;
  } catch {
    return null;
  }
}
