/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A whole page: self-contained (inline CSS, no script, nothing fetched from elsewhere). */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · LMS</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 48rem; padding: 1.5rem; line-height: 1.5; color: #1a1a1a; }
  h1 { font-size: 1.5rem; }
  .error { border-left: 4px solid #b00020; background: #fdecee; padding: 0.75rem 1rem; }
  .muted { color: #555; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
  dt { font-weight: 600; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 0.4rem; border-bottom: 1px solid #ddd; }
  progress { width: 8rem; }
  button { font: inherit; padding: 0.4rem 1rem; cursor: pointer; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}
