// The metric names a PromQL expression reads, so a test can hold every rule and dashboard query
// against what the processes really export. Prometheus 2.42 (Debian's) has no endpoint that parses a
// query, so this takes the expression apart lexically: what is left once strings, label matchers,
// ranges and grouping lists are gone, and function names, keywords and numbers are set aside, is
// the metric names.

/** Words PromQL uses between operands; never metric names (`inf` and `nan` are numbers). */
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'inf', 'nan']);

/** The distinct metric names `expression` selects, in order of appearance. */
export function metricNamesOf(expression: string): string[] {
  const bare = expression
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names: string[] = [];
  // An identifier not glued to a number before it (`15m`, `1e3`) and not a function's name (followed by its parenthesis).
  for (const match of bare.matchAll(/(?<![\w:.])[A-Za-z_:][\w:]*(?![\w:])(?!\s*\()/g)) {
    const name = match[0];
    if (!KEYWORDS.has(name.toLowerCase()) && !names.includes(name)) names.push(name);
  }
  return names;
}
