/** Strings that break naive SQL quoting: quotes, backslashes, placeholders, non-ASCII, control characters, length. */
export const awkwardStrings = [
  '',
  'plain',
  "o'clock",
  "''",
  'back\\slash',
  "both ' and \\ here",
  '\\',
  'ünïcødé – 💳 ✓',
  'line\nbreak\ttab',
  '?',
  '{"json":"looking","quote":"\'"}',
  'x'.repeat(5_000) + "'" + 'y'.repeat(5_000),
];
