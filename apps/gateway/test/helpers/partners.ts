import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { makePartnerKey, partnerClaims, signPartnerToken as sign } from '@lms/partner-auth/testing';
import type { Test } from 'tap';

export interface PartnerEntry {
  iss: string;
  allowedIps: string[];
  lmsUrl: string;
}

/** A partners file in its own temporary directory (removed after the test); returns its path. */
export async function writePartnersFile(t: Test, content: { partners: PartnerEntry[] } | string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gateway-partners-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'partners.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

const key = makePartnerKey('key-1');

/** A real RS256 SSO token as a partner would sign it (the gateway never checks the signature). */
export async function signPartnerToken(iss: string, extra: Record<string, unknown> = {}): Promise<string> {
  return sign(await key, partnerClaims(iss, { email: 'member@example.org', membershipId: 'M-1', ...extra }));
}

/** An unsigned compact token with the given header and payload (for format and claim cases). */
export function rawToken(header: unknown, payload: unknown, signature = 'c2lnbmF0dXJl'): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${b64(header)}.${b64(payload)}.${signature}`;
}

/** Re-checks `condition` until it holds; false if it never did within `limitMs` (a file watch is asynchronous). */
export async function eventually(condition: () => Promise<boolean>, limitMs = 15_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/** A logger configuration for buildGateway whose lines are collected, parsed, in `lines`. */
export function logCapture() {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: { level: 'info', stream } };
}
