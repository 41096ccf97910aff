import { lookup } from 'node:dns/promises';

/** Resolves a host name to every address it has. Injected, so tests can point names anywhere. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) => {
  const records = await lookup(hostname, { all: true, verbatim: true });
  return records.map((record) => record.address);
};
