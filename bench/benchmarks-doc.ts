/**
 * docs/benchmarks.md after a full `make bench`: the new table on top, and what the file held before kept below it.
 * Writing the table alone threw away every note on earlier runs (they were put back by hand); now the table it
 * replaces moves under a heading of its own, so each note still sits below the table it speaks of.
 */
const TITLE = '# Benchmarks';

/** `table`: the new run's text, starting with the title. `previous`: the file as it was, or null when there is none. */
export function benchmarksDocument(table: string, previous: string | null): string {
  const fresh = table.trimEnd();
  const body = previous?.startsWith(TITLE) ? previous.slice(TITLE.length).trim() : (previous ?? '').trim();
  if (!body) return `${fresh}\n`;
  const notesAt = body.startsWith('## ') ? 0 : body.indexOf('\n## ');
  const earlierTable = (notesAt === -1 ? body : body.slice(0, notesAt)).trim();
  const rest = notesAt === -1 ? '' : body.slice(notesAt).trim();
  const when = /^Run (\S+)/.exec(earlierTable)?.[1];
  const sections = [fresh];
  if (earlierTable) sections.push(`## The table of the run before${when ? ` (${when})` : ''}`, earlierTable);
  if (rest) sections.push(rest);
  return `${sections.join('\n\n')}\n`;
}
