import type { CoreDeps } from '../deps';

export interface Diagnostics {
  databaseTime: string;
  voiceCount: number;
  checkedAt: string;
}

/** A read-only round trip through the database, used by the diagnostics workflow and `voice doctor`. */
export async function runDiagnostics({ db, clock }: CoreDeps): Promise<Diagnostics> {
  const [row] = await db.$queryRaw<{ now: Date }[]>`SELECT now() AS now`;
  const voiceCount = await db.voice.count();
  return {
    databaseTime: (row?.now ?? new Date(0)).toISOString(),
    voiceCount,
    checkedAt: clock.now().toISOString(),
  };
}
