import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../deps';
import { FlowDefinition } from '../flows/schema';
import { APPOINTMENT_CALENDAR_URL } from '../flows/templates';
import { createTestDeps } from '../testing/deps';
import { DEMO, seedDemo } from './seed-demo';

/** The demo seed's flow agent asks the dev stack's calendar when it is given one. */

let deps: CoreDeps;
let drop: () => Promise<void>;
beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  drop = test.database.drop;
});
afterAll(() => drop?.());

async function demoFlow() {
  const agent = await deps.db.agent.findUniqueOrThrow({ where: { id: DEMO.flowAgentId } });
  const flow = FlowDefinition.parse(agent.flowDefinition);
  const node = flow.nodes.find(({ id }) => id === 'check_calendar');
  const versions = await deps.db.agentFlowVersion.count({ where: { agentId: DEMO.flowAgentId } });
  return { version: agent.version, url: node?.type === 'function' ? node.function.url : null, versions };
}

describe('the demo seed', () => {
  it('points the demo flow at the calendar it is given, as a new version, and only once', async () => {
    await seedDemo(deps);
    expect(await demoFlow()).toEqual({ version: 1, url: APPOINTMENT_CALENDAR_URL, versions: 1 });

    const local = 'https://127.0.0.1:3443/availability';
    const again = await seedDemo(deps, { calendarUrl: local });
    expect(await demoFlow()).toEqual({ version: 2, url: local, versions: 2 });
    await seedDemo(deps, { calendarUrl: local, knownKey: again.apiKey, knownPassword: again.login.password });
    expect(await demoFlow()).toEqual({ version: 2, url: local, versions: 2 });

    // Another port for the dev calendar: the seed follows it.
    await seedDemo(deps, { calendarUrl: 'https://127.0.0.1:4443/availability' });
    expect((await demoFlow()).url).toBe('https://127.0.0.1:4443/availability');
  });

  it('keeps what else the user changed in the demo flow when it points it at another calendar', async () => {
    const agent = await deps.db.agent.findUniqueOrThrow({ where: { id: DEMO.flowAgentId } });
    const flow = FlowDefinition.parse(agent.flowDefinition);
    const edited = {
      ...flow,
      global_prompt: 'You are the receptionist of the Demo Clinic, edited by hand.',
    };
    await deps.db.agent.update({ where: { id: DEMO.flowAgentId }, data: { flowDefinition: edited } });
    await seedDemo(deps, { calendarUrl: 'https://127.0.0.1:5443/availability' });
    const after = FlowDefinition.parse(
      (await deps.db.agent.findUniqueOrThrow({ where: { id: DEMO.flowAgentId } })).flowDefinition,
    );
    expect(after.global_prompt).toBe(edited.global_prompt);
    expect((await demoFlow()).url).toBe('https://127.0.0.1:5443/availability');
  });

  it('leaves a demo flow whose calendar the user changed', async () => {
    const agent = await deps.db.agent.findUniqueOrThrow({ where: { id: DEMO.flowAgentId } });
    const flow = FlowDefinition.parse(agent.flowDefinition);
    const mine = 'https://calendar.customer.example/slots';
    const changed = {
      ...flow,
      nodes: flow.nodes.map((node) =>
        node.type === 'function' ? { ...node, function: { ...node.function, url: mine } } : node,
      ),
    };
    await deps.db.agent.update({ where: { id: DEMO.flowAgentId }, data: { flowDefinition: changed } });
    const before = await demoFlow();
    await seedDemo(deps, { calendarUrl: 'https://127.0.0.1:3443/availability' });
    expect(await demoFlow()).toEqual({ ...before, url: mine });
  });
});
