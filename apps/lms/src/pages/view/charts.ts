import { type Html, html } from './html.js';

export interface BarItem {
  label: string;
  value: number;
  /** The value as written next to its bar, formatted for the page's locale (e.g. "45,5%", "Rp 1.200"). */
  text: string;
}

export interface BarChart {
  /** A name for the chart's element ids (`chart-<name>`), the same in every language. */
  name: string;
  /** The caption, in the page's language. */
  title: string;
  items: BarItem[];
  /** What the chart says when it has no items, in the page's language. */
  empty: string;
  /** The scale (100 for percentages); otherwise the largest value fills the width. */
  max?: number;
  color?: string;
}

/**
 * A horizontal bar chart as inline SVG, generated on the server: one labelled bar per item, the
 * value written at its end, so it reads without colour and without a script. Labels (category
 * names) are escaped by the template like any text; colours are SVG attributes, not styles.
 */
export function barChart(chart: BarChart): Html {
  const { title, items } = chart;
  const id = `chart-${chart.name}`;
  if (items.length === 0) {
    return html`<figure><figcaption>${title}</figcaption><p class="muted">${chart.empty}</p></figure>`;
  }
  // Sized for the ~300 px a chart gets on the page, so 13-unit text renders at about 13 px:
  // the label on its own line (long category names fit), the bar below it, the value at its end.
  const width = 320;
  // Room for the longest value at the bars' end ("IDR 1,050,000" is longer than "Rp 1.050.000"),
  // at about 9 units per character of 13-unit bold text (a "%" is wide); the bars get the rest.
  const longest = Math.max(...items.map((i) => i.text.length));
  const valueWidth = Math.min(160, Math.max(48, longest * 9 + 8));
  const barArea = width - valueWidth;
  const rowHeight = 40;
  const height = items.length * rowHeight + 4;
  const max = chart.max ?? Math.max(...items.map((i) => i.value), 0);
  const color = chart.color ?? '#1f5fa8';
  const rows = items.map((item, index) => {
    const y = index * rowHeight;
    const w = max > 0 ? Math.max(0, Math.min(1, item.value / max)) * barArea : 0;
    const label = item.label.length > 44 ? `${item.label.slice(0, 43)}…` : item.label;
    return html`<g>
<title>${item.label}: ${item.text}</title>
<text x="0" y="${y + 14}" font-size="13" fill="#1a1a1a">${label}</text>
<rect x="0" y="${y + 20}" width="${barArea}" height="14" rx="3" fill="#e3e7ed"/>
<rect x="0" y="${y + 20}" width="${w.toFixed(1)}" height="14" rx="3" fill="${color}"/>
<text x="${barArea + 6}" y="${y + 32}" font-size="13" font-weight="600" fill="#1a1a1a">${item.text}</text>
</g>
`;
  });
  const summary = items.map((i) => `${i.label}: ${i.text}`).join('; ');
  return html`<figure>
<figcaption id="${id}">${title}</figcaption>
<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}" aria-describedby="${id}-desc" font-family="system-ui, sans-serif">
<desc id="${id}-desc">${summary}</desc>
${rows}</svg>
</figure>`;
}
