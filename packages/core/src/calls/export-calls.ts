import { stringify } from 'csv-stringify/sync';
import type { CoreDeps } from '../deps';
import { toLightweightCall, type ListedCallRow } from './call-view';
import { callPage } from './list-calls';
import type { ListCallsData } from './schemas';

/** Booleans as `true`/`false` (the library writes false as an empty cell). */
const CSV_OPTIONS = { cast: { boolean: (value: boolean) => String(value) } };

/** Calls read per query while exporting: the list's largest page. */
const EXPORT_BATCH = 1000;

const COLUMNS = [
  'call_id',
  'start_time',
  'call_type',
  'direction',
  'from_number',
  'to_number',
  'agent_name',
  'agent_version',
  'call_status',
  'disconnection_reason',
  'duration_seconds',
  'is_test_call',
] as const;

/**
 * Text a person or a model wrote (an agent's name, a summary) could start like a spreadsheet formula;
 * such a cell is opened as text. Numbers and ids are never touched (a `+1415…` stays a number).
 */
const asText = (value: string | null | undefined) =>
  value && /^[=+\-@\t\r]/.test(value) ? `'${value}` : (value ?? '');

/**
 * The calls a list filter matches, as CSV, all of them in the list's order: the header, then a chunk
 * per page of calls read along the same keyset as call-list, so memory stays flat however many there
 * are. `limit` is ignored; `pagination_key` starts after that call, as the list would (an interrupted
 * download resumes after its last whole line). The first page is read before this returns, so a bad
 * request fails before anything is sent.
 */
export async function exportCallsCsv(
  deps: CoreDeps,
  { accountId, pagination_key, ...input }: { accountId: string } & ListCallsData,
): Promise<AsyncIterable<string>> {
  const includeSummary = input.filter_criteria.include_summary;
  const header = [...COLUMNS, ...(includeSummary ? ['summary'] : [])];
  const pageAfter = (key: string | undefined) =>
    callPage(deps, accountId, { ...input, limit: EXPORT_BATCH, ...(key ? { pagination_key: key } : {}) });
  const line = (row: ListedCallRow) => {
    const call = toLightweightCall(row, { includeSummary });
    return [
      call.call_id,
      new Date(call.start_timestamp).toISOString(),
      call.call_type,
      call.direction,
      call.from_number,
      call.to_number,
      asText(row.agent?.name),
      call.agent?.version ?? '',
      call.call_status,
      call.disconnection_reason ?? '',
      (call.duration_ms / 1000).toFixed(1),
      call.is_test_call,
      ...(includeSummary ? [asText(call.summary)] : []),
    ];
  };
  const first = await pageAfter(pagination_key);
  return (async function* chunks() {
    yield stringify([header, ...first.map(line)], CSV_OPTIONS);
    for (let rows = first; rows.length === EXPORT_BATCH;) {
      rows = await pageAfter(rows.at(-1)!.id);
      if (rows.length > 0) yield stringify(rows.map(line), CSV_OPTIONS);
    }
  })();
}
