import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { CoreDeps } from '@voice/core';
import { createTestDeps } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { inject } from 'vitest';

export interface TestServices {
  /** Core dependencies over a fresh test database. */
  deps: CoreDeps;
  database: TestDatabase;
  /** For workers. */
  nativeConnection: NativeConnection;
  /** For starting and reading workflows. */
  client: Client;
  close(): Promise<void>;
}

/** A fresh database and connections to the test run's Temporal dev server. */
export async function connectTestServices(): Promise<TestServices> {
  const { deps, database } = await createTestDeps();
  const address = inject('temporalAddress');
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  return {
    deps,
    database,
    nativeConnection,
    client: new Client({ connection }),
    async close() {
      await connection.close();
      await nativeConnection.close();
      await database.drop();
    },
  };
}
