import type { ReactNode } from 'react';
import { ConfirmButton } from './ConfirmButton';

export interface DataColumn<T> {
  header: string;
  cell(row: T): ReactNode;
}

/** A row's removal (remove, revoke), asked to be confirmed: "<verb> <name>? <consequence>". */
export interface RowRemoval<T> {
  verb: string;
  /** What the row is called in the button and the question. */
  name(row: T): string;
  /** What removing a row means, said after the question. */
  consequence: string;
  remove(row: T): void;
  pending: boolean;
  /** Rows that cannot be removed (a key revoked already); all when unset. */
  removable?(row: T): boolean;
}

/**
 * The dashboard's list tables: a caption for screen readers, a header per column, a row per item, and
 * the row's action (remove, revoke) in a last column whose header only screen readers hear. At phone
 * width each row is a card of labelled values (styles.css, `table.cards`), so no column is clipped.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  action,
  removal,
  empty,
}: {
  caption: string;
  columns: DataColumn<T>[];
  rows: readonly T[];
  rowKey(row: T): string;
  action?(row: T): ReactNode;
  /** Each row's removal, as its action. */
  removal?: RowRemoval<T>;
  /** Shown under the table when it has no rows. */
  empty?: string;
}) {
  const actionOf =
    action ??
    (removal &&
      ((row: T) =>
        (removal.removable?.(row) ?? true) && (
          <ConfirmButton
            label={`${removal.verb} ${removal.name(row)}`}
            question={`${removal.verb} ${removal.name(row)}? ${removal.consequence}`}
            confirmLabel={removal.verb}
            onConfirm={() => removal.remove(row)}
            disabled={removal.pending}
          />
        )));
  return (
    <div className="table-scroll">
      <table className="cards">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.header}>
                {column.header}
              </th>
            ))}
            {actionOf && (
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
                <td key={column.header} data-label={column.header}>
                  {column.cell(row)}
                </td>
              ))}
              {actionOf && <td>{actionOf(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {empty && rows.length === 0 && <p>{empty}</p>}
    </div>
  );
}
