import Papa from 'papaparse';

/**
 * CSV as spreadsheets write it (RFC 4180), read by papaparse: fields quoted with `"` when they hold the
 * separator, a quote or a line break, quotes doubled inside quotes, a byte-order mark from Excel ignored.
 * The separator is a comma, or a semicolon as spreadsheets set to a European locale write it (where the
 * comma is the decimal mark); papaparse tells which from the first rows. Blank lines are not rows.
 */
export function parseCsv(text: string): string[][] {
  // Rows end at LF, so Windows (CRLF) and Unix lines, even mixed in one hand-edited file, both work;
  // only a file with no LF at all (old Mac) ends its rows with CR alone.
  const input = text.includes('\n') ? text : text.replace(/\r/g, '\n');
  const result = Papa.parse<string[]>(input, { delimitersToGuess: [',', ';'], newline: '\n', skipEmptyLines: true });
  // A file of one column has no separator to find; that is not an error.
  const error = result.errors.find((e) => e.type === 'Quotes');
  if (error?.code === 'MissingQuotes') throw new Error('The file ends inside a quoted field.');
  if (error) throw new Error(`Row ${(error.row ?? 0) + 1}: a quoted field has text after its closing quote.`);
  return result.data
    .map((row) => (row[row.length - 1]?.endsWith('\r') ? [...row.slice(0, -1), row[row.length - 1]!.slice(0, -1)] : row))
    .filter((row) => row.length > 1 || row[0] !== '');
}

/**
 * Rows to CSV text. A field that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed
 * with `'` so a spreadsheet shows it as text instead of running it as a formula; only a whole number
 * (`-2500`) is left bare, since `-2+3+cmd|...` starts with a digit too (docs/dashboard.md).
 */
export function toCsv(rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  return rows
    .map((row) =>
      row
        .map((value) => {
          let text = value === null || value === undefined ? '' : String(value);
          if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+$/.test(text)) text = `'${text}`;
          return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
        })
        .join(','),
    )
    .join('\r\n')
    .concat('\r\n');
}

/** Has the browser save `text` as a file. */
export function download(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
