import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The repository's HAProxy configuration (deploy/haproxy), read as the tests need it: its
// sections and settings for the checks of compose.test.ts, and compose.cfg's frontends and
// backends pointed at local processes for many-instances.test.ts.

export const HAPROXY_DIR = fileURLToPath(new URL('../../../deploy/haproxy/', import.meta.url));

/** Debian's haproxy (scripts/ensure-haproxy.sh installs it); /usr/sbin is not on every PATH. */
export const haproxyBinary = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';

export interface Section {
  kind: string;
  name: string;
  /** The section's lines, trimmed, without comments and blank lines. */
  lines: string[];
}

/** A configuration file's sections in order (a section starts at a line with no indentation). */
export function parseHaproxyConfig(text: string): Section[] {
  const sections: Section[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd();
    if (!line.trim()) continue;
    if (!/^\s/.test(line)) {
      const [kind = '', name = ''] = line.trim().split(/\s+/);
      sections.push({ kind, name, lines: [] });
    } else {
      sections.at(-1)?.lines.push(line.trim());
    }
  }
  return sections;
}

export function readHaproxyConfig(file: string): Section[] {
  return parseHaproxyConfig(readFileSync(join(HAPROXY_DIR, file), 'utf8'));
}

/** The words after `keyword` on the first line of the section that starts with it (`timeout check` → ['1s']). */
export function setting(section: Section, keyword: string): string[] | undefined {
  const line = section.lines.find((l) => l === keyword || l.startsWith(`${keyword} `));
  return line?.slice(keyword.length).trim().split(/\s+/);
}

/** An HAProxy time (`1s`, `500ms`, `2m`; a bare number is milliseconds) in milliseconds. */
export function haproxyMs(value: string): number {
  const m = /^(\d+)(us|ms|s|m|h|d)?$/.exec(value);
  if (!m) throw new Error(`not an HAProxy time: ${value}`);
  const unit = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms']!;
  return Number(m[1]) * unit;
}

/** The value of `name value` among `words` (`inter 1s fall 2` → inter: '1s'). */
export function option(words: string[], name: string): string | undefined {
  const at = words.indexOf(name);
  return at >= 0 ? words[at + 1] : undefined;
}

/**
 * compose.cfg with its frontends on the given local ports and its backends' replicas found
 * through Docker's DNS (`server-template lms 10 lms:3000 ... resolvers docker init-addr none`)
 * replaced by the given servers, with the rest of each server line's options kept; the resolvers
 * section dropped. Everything else (the frontends' header rules, the backends' retry rules) runs
 * as compose runs it.
 */
export function composeConfigFor(binds: Record<string, number>, servers: Record<string, Array<{ name: string; port: number }>>): string {
  const out: string[] = [];
  for (const section of readHaproxyConfig('compose.cfg')) {
    if (section.kind === 'resolvers') continue;
    out.push(`${section.kind} ${section.name}`);
    for (const line of section.lines) {
      if (line.startsWith('bind ')) {
        const port = binds[section.name];
        if (port === undefined) throw new Error(`no local port given for frontend ${section.name}`);
        out.push(`    bind 127.0.0.1:${port}`);
      } else if (line.startsWith('server-template ')) {
        const [, , , , ...options] = line.split(/\s+/);
        const kept = options.filter(
          (word, i) => !['resolvers', 'init-addr'].includes(word) && !['resolvers', 'init-addr'].includes(options[i - 1]!),
        );
        for (const server of servers[section.name] ?? []) out.push(`    server ${server.name} 127.0.0.1:${server.port} ${kept.join(' ')}`);
      } else {
        out.push(`    ${line}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}
