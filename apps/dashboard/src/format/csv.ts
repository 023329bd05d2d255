/**
 * CSV as spreadsheets write it (RFC 4180): comma-separated, fields quoted with `"` when they hold a
 * comma, quote or line break, quotes doubled inside quotes, CRLF or LF line ends.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte-order mark from Excel
  for (; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new Error('The file ends inside a quoted field.');
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  // Blank lines (often a trailing one) are not rows.
  return rows.filter((r) => r.length > 1 || r[0] !== '');
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
