/**
 * Every query on tenant data goes through this helper, so no read or write can forget the account.
 * Another account's row is simply not found (404), never forbidden.
 */
export function inAccount<W extends object>(accountId: string, where?: W): W & { accountId: string } {
  return { ...(where ?? ({} as W)), accountId };
}
