/**
 * Strings that break naive SQL quoting: quotes, backslashes, placeholders, non-ASCII, control characters, length.
 * Every one is storable: PostgreSQL keeps it as text and inside jsonb, so it must round-trip unchanged.
 */
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
  'controls \u0001\u001b\u007f\u0085 and separators \u2028\u2029 and a BOM \ufeff',
  '?',
  '{"json":"looking","quote":"\'"}',
  'x'.repeat(5_000) + "'" + 'y'.repeat(5_000),
];

/**
 * Strings PostgreSQL cannot store at all (text and jsonb refuse a NUL; an unpaired UTF-16 surrogate is not UTF-8),
 * as JSON.parse makes them from "\u0000" and "\ud800". The edge refuses them (edge/http/text-hygiene.ts), so they
 * never reach a query: they are not for round-trip tests.
 */
export const unstorableStrings = ['\u0000', 'a\u0000b', '\ud800', '\udc00', 'emoji cut in half \ud83d', '\udcb3 low half first', 'x'.repeat(300) + '\u0000'];
