import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './ports';

describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range, each one bindable', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(32_000);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(ports[0], '127.0.0.1', resolve),
    );
    await new Promise((resolve) => server.close(resolve));
  });
});
