import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_ATTRIBUTES, startTemporalOnFreePort, type RunningTemporal } from './temporal-server';

describe('Temporal dev server', () => {
  let temporal: RunningTemporal;
  beforeAll(async () => {
    temporal = await startTemporalOnFreePort();
  });
  afterAll(() => temporal?.stop());

  it('starts, reports its source and registers the service search attributes', async () => {
    expect(['TEMPORAL_ADDRESS', 'path', 'cache', 'go-install', 'sdk-download']).toContain(temporal.source);
    const connection = await Connection.connect({ address: temporal.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: 'default',
      });
      for (const name of Object.keys(SEARCH_ATTRIBUTES)) {
        expect(customAttributes?.[name]).toBeDefined();
      }
    } finally {
      await connection.close();
    }
  });
});
