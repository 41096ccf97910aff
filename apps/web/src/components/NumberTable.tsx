import { formatTime } from '../format';
import { DataTable, type DataColumn } from './DataTable';

/**
 * An account's list of phone numbers (the do-not-call list, the test contacts): the number, one detail
 * of the list's own, when it was added, and a confirmed removal saying what removing it means.
 */
export function NumberTable<T extends { phone_number: string; created_at: string }>({
  caption,
  rows,
  detail,
  consequence,
  remove,
  empty,
}: {
  caption: string;
  rows: readonly T[];
  detail: DataColumn<T>;
  consequence: string;
  remove: { mutate(phoneNumber: string): void; isPending: boolean };
  empty?: string;
}) {
  return (
    <DataTable
      caption={caption}
      rows={rows}
      rowKey={(row) => row.phone_number}
      columns={[
        { header: 'Number', cell: (row) => row.phone_number },
        detail,
        { header: 'Added', cell: (row) => formatTime(row.created_at) },
      ]}
      removal={{
        verb: 'Remove',
        name: (row) => row.phone_number,
        consequence,
        remove: (row) => remove.mutate(row.phone_number),
        pending: remove.isPending,
      }}
      {...(empty ? { empty } : {})}
    />
  );
}
