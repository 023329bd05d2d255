import { stringify } from 'csv-stringify/sync';

/**
 * Characters that make a spreadsheet read a cell as a formula (CSV injection): a text cell starting
 * with one gets a `'` in front (docs/reports.md, CSV). Tab and carriage return too, as OWASP lists them.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export type ReportCell = string | number | null;

/** A text cell as written: prefixed with `'` when a spreadsheet would take it for a formula. */
export function guardFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * Rows as CSV text (RFC 4180: CRLF line ends, a field with a comma, quote or line break quoted,
 * quotes doubled), with the header row when `columns` is given. Numbers are written as numbers
 * (a negative amount stays `-500`: the service wrote it, it is no formula); text is guarded; null
 * is an empty cell.
 */
export function csvText(rows: ReportCell[][], columns?: readonly string[]): string {
  return stringify(rows, {
    header: columns !== undefined,
    columns: columns?.map((key, index) => ({ key: String(index), header: key })),
    record_delimiter: 'windows',
    cast: { string: guardFormula, number: (value) => String(value) },
  });
}
