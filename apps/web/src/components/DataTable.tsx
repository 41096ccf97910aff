import type { ReactNode } from 'react';

export interface DataColumn<T> {
  header: string;
  cell(row: T): ReactNode;
}

/**
 * The dashboard's list tables: a caption for screen readers, a header per column, a row per item, and
 * the row's action (remove, revoke) in a last column whose header only screen readers hear. Scrolls
 * sideways on its own at phone width rather than the page.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  action,
  empty,
}: {
  caption: string;
  columns: DataColumn<T>[];
  rows: readonly T[];
  rowKey(row: T): string;
  action?(row: T): ReactNode;
  /** Shown under the table when it has no rows. */
  empty?: string;
}) {
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.header}>
                {column.header}
              </th>
            ))}
            {action && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header}>{column.cell(row)}</td>
              ))}
              {action && <td>{action(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {empty && rows.length === 0 && <p>{empty}</p>}
    </div>
  );
}
