import { AUTHORING_LIMITS } from '@lms/contracts';

const MAX: number = AUTHORING_LIMITS.chapterContentChars;
const fill = (unit: string, max = MAX) => unit.repeat(Math.floor(max / unit.length));

/**
 * Chapter texts an author could save (each at most the chapter content limit), chosen for what
 * they cost markdown-it and sanitize-html: nested unclosed elements (quadratic in sanitize-html's
 * parser before the nesting limit), and Markdown that is heavy for markdown-it itself.
 */
export const HOSTILE_MARKDOWN: Record<string, string> = {
  'unclosed <a>': fill('<a>'),
  'unclosed <em> with text': fill('<em>x'),
  'unclosed <div>': fill('<div>'),
  'close tags that match nothing': `${'<b>'.repeat(250)}${fill('</i>', MAX - 750)}`,
  'emphasis delimiters': `${'*'.repeat(MAX / 2 - 1)}a${'*'.repeat(MAX / 2)}`,
  'open brackets': fill('['),
  links: fill('[a](https://e.example/) '),
  'a long table': `|a|b|\n|-|-|\n${fill('|x|y|\n', MAX - 12)}`,
  'nested lists': fill('- a\n  - b\n    - c\n      - d\n'),
  entities: fill('&amp;&lt;'),
};

for (const [name, text] of Object.entries(HOSTILE_MARKDOWN)) {
  if (text.length > MAX) throw new Error(`${name}: ${text.length} characters, more than a chapter may hold`);
}
