import { describe, expect, it } from 'vitest';
import { APPOINTMENT_FLOW } from '../../flows/templates';
import { simulateFlow } from './flow-conversation';

describe('a simulated flow conversation', () => {
  it('runs the flow engine to an end with a scripted caller, the same path for the same call', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => `call-${index}`);
    const runs = await Promise.all(ids.map((id) => simulateFlow(id, APPOINTMENT_FLOW, {})));
    for (const run of runs) {
      expect(run.ended).toBe(true);
      expect(run.lines[0]).toEqual({ role: 'system', content: 'node: Ask name and date' });
      expect(run.lines.filter((line) => line.role === 'system').map((line) => line.content)).toContain(
        'function Check the calendar: ok',
      );
      expect(Object.keys(run.collected).sort()).toEqual(['date', 'name']);
      expect(run.collected.date).toMatch(/^2026-12-\d\d$/);
      // What the caller said is what the flow understood.
      expect(run.lines.find((line) => line.role === 'caller')?.content).toMatch(
        new RegExp(`^${run.collected.name}, 2026-12-\\d\\d$`),
      );
    }
    // Different calls take different paths through the flow (confirmed at once, or another date offered).
    const endings = new Set(
      runs.map((run) => run.lines.filter((line) => line.role === 'system').at(-1)?.content),
    );
    expect(endings.size).toBeGreaterThan(1);
    expect(await simulateFlow('call-3', APPOINTMENT_FLOW, {})).toEqual(runs[3]);
  });
});
