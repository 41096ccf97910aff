/**
 * Every query on tenant data goes through this helper, so no read or write can forget the account.
 * Another account's row is simply not found (404), never forbidden.
 */
export function inAccount<W extends object>(accountId: string, where?: W): W & { accountId: string } {
  return { ...(where ?? ({} as W)), accountId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs: anything else cannot name a row (and must not reach a uuid column, which would fail). */
export const isUuid = (value: string): boolean => UUID.test(value);
