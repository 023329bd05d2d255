import type { Key, ReactNode } from 'react';

export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
}

/**
 * The list table every page shows: a header row, one row per item, and a region that scrolls
 * sideways on narrow screens (reachable by keyboard). A column given as `false` is left out, for
 * columns only some sessions see. `label` names the region (e.g. "Cards"), so a page with several
 * tables has regions a screen reader user can tell apart.
 */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  label,
}: {
  rows: readonly T[];
  columns: (Column<T> | false)[];
  rowKey: (row: T) => Key;
  caption?: ReactNode;
  label?: string;
}) {
  const shown = columns.filter((column): column is Column<T> => column !== false);
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label ? `${label} (scrolls sideways on narrow screens)` : 'Table (scrolls sideways on narrow screens)'}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>
            {shown.map((column, index) => (
              <th key={index} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {shown.map((column, index) => (
                <td key={index}>{column.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
