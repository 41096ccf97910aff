import type { ModifyWebhookInput } from '@voice/core/schemas';
import { useState } from 'react';

// The agent form's lists (webhooks, variables): their rows as edited, and how the api takes them.

/** A webhook being edited: an existing one (with its id) keeps its write-only parts unless told. */
export interface WebhookRow {
  key: number;
  id?: string;
  name: string;
  url: string;
  hasSecret: boolean;
  hasHeaders: boolean;
  secret: string;
  removeSecret: boolean;
  headerName: string;
  headerValue: string;
  removeHeaders: boolean;
}
export interface ProvidedRow {
  key: number;
  name: string;
  description: string;
  default: string;
}
export interface ExtractedRow {
  key: number;
  name: string;
  description: string;
  required: boolean;
}

let nextKey = 0;
export const newKey = () => (nextKey += 1);

export const emptyWebhook = (): WebhookRow => ({
  key: newKey(),
  name: '',
  url: '',
  hasSecret: false,
  hasHeaders: false,
  secret: '',
  removeSecret: false,
  headerName: '',
  headerValue: '',
  removeHeaders: false,
});

/** The webhook as the API takes it: an existing one sends its id and only the write-only parts changed. */
export function webhookInput(row: WebhookRow): ModifyWebhookInput {
  const headerName = row.headerName.trim();
  const secret = row.secret ? { secret: row.secret } : row.removeSecret ? { secret: null } : {};
  const headers = headerName
    ? { headers: { [headerName]: row.headerValue } }
    : row.removeHeaders
      ? { headers: null }
      : {};
  return { ...(row.id ? { id: row.id } : {}), name: row.name, url: row.url, ...secret, ...headers };
}

/** One list of the form (webhooks, variables): its rows, and how to change one, add one, remove one. */
export function useRows<Row extends { key: number }>(initial: () => Row[]): ListRows<Row> {
  const [rows, setRows] = useState(initial);
  return {
    rows,
    change: (key: number, changes: Partial<Row>) =>
      setRows((current) => current.map((row) => (row.key === key ? { ...row, ...changes } : row))),
    add: (row: Row) => setRows((current) => [...current, row]),
    remove: (key: number) => setRows((current) => current.filter((row) => row.key !== key)),
    bind: (row, field) => ({
      value: row[field] as string,
      onChange: (event) =>
        setRows((current) =>
          current.map((each) => (each.key === row.key ? { ...each, [field]: event.target.value } : each)),
        ),
    }),
  };
}

/** The fields of a row that hold text. */
type TextField<Row> = { [F in keyof Row]: Row[F] extends string ? F : never }[keyof Row];

export interface ListRows<Row> {
  rows: Row[];
  change(key: number, changes: Partial<Row>): void;
  add(row: Row): void;
  remove(key: number): void;
  /** An input's value and change handler for one text field of a row. */
  bind(
    row: Row,
    field: TextField<Row>,
  ): { value: string; onChange(event: { target: { value: string } }): void };
}

/** Where a list's problems are shown: beside the row's field, or under the list. */
export interface RowErrors {
  rowError(list: string, index: number, field: string): string | undefined;
  listError(list: string, count: number, fields: string[]): string | undefined;
}
