import { holdWrites } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialCall } from '../calls/dial-call';
import { createCampaign } from '../campaigns/create-campaign';
import { CreateCampaignInput } from '../campaigns/schemas';
import { cancelCampaign } from '../campaigns/control-campaign';
import type { CoreDeps } from '../deps';
import { createTestDeps, seedAccount } from '../testing/deps';
import { addPhoneNumber } from './add-phone-number';
import { releasePhoneNumber } from './release-phone-number';

/**
 * A release takes a number out of its account, never while a call through it is in progress or a
 * campaign that has not ended dials from it. Its window is a dial or a campaign being written with the
 * number while the release runs: each test stops one of them at that point.
 */

let deps: CoreDeps;
let databaseUrl: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  databaseUrl = test.database.url;
  drop = test.database.drop;
});
afterAll(() => drop?.());

let serial = 0;
async function accountWithNumber() {
  serial += 1;
  const number = `+1415552${String(1000 + serial)}`;
  const { account, agent } = await seedAccount(deps, `Release ${serial}`, [number]);
  return { accountId: account.id, agentId: agent.id, number };
}
const registered = (number: string) => deps.db.phoneNumber.count({ where: { number } });
const callsFrom = (number: string) => deps.db.call.count({ where: { fromNumber: number } });
const dialFrom = (accountId: string, number: string) =>
  dialCall(deps, { accountId, from_number: number, to_number: '+14155559999' });

describe('releasing a number', () => {
  it('takes it out of the account: not listed, no dial from it, and it can be added again', async () => {
    const { accountId, number } = await accountWithNumber();
    await expect(releasePhoneNumber(deps, { accountId, phone_number: number })).resolves.toEqual({
      phone_number: number,
      released: true,
    });
    expect(await registered(number)).toBe(0);
    await expect(dialFrom(accountId, number)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(releasePhoneNumber(deps, { accountId, phone_number: number })).rejects.toMatchObject({
      code: 'PHONE_NUMBER_NOT_FOUND',
    });
    await addPhoneNumber(deps, { accountId, phone_number: number });
    expect(await registered(number)).toBe(1);
  });

  it("is not found for another account's number, which stays", async () => {
    const { number } = await accountWithNumber();
    const other = await accountWithNumber();
    await expect(
      releasePhoneNumber(deps, { accountId: other.accountId, phone_number: number }),
    ).rejects.toMatchObject({ code: 'PHONE_NUMBER_NOT_FOUND' });
    expect(await registered(number)).toBe(1);
  });

  it('is refused while a call through it is in progress, and allowed once it ended', async () => {
    const { accountId, number } = await accountWithNumber();
    const { call_id } = await dialFrom(accountId, number);
    await expect(releasePhoneNumber(deps, { accountId, phone_number: number })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `Phone number ${number} has 1 call(s) in progress; release it when they have ended`,
    });
    expect(await registered(number)).toBe(1);
    await deps.db.call.update({ where: { id: call_id }, data: { status: 'ended', endedAt: new Date() } });
    await releasePhoneNumber(deps, { accountId, phone_number: number });
    expect(await registered(number)).toBe(0);
  });

  it('is refused while a campaign that has not ended dials from it, and allowed once it is canceled', async () => {
    const { accountId, agentId, number } = await accountWithNumber();
    const campaign = await createCampaign(deps, {
      accountId,
      ...CreateCampaignInput.parse({
        name: 'Spring',
        agent_id: agentId,
        from_numbers: [number],
        contacts: [{ to_number: '+14155559998' }],
        draft: true,
      }),
    });
    await expect(releasePhoneNumber(deps, { accountId, phone_number: number })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `Phone number ${number} is a from number of campaign(s) that have not ended: "Spring"; cancel them or let them finish first`,
    });
    await cancelCampaign(deps, { accountId, campaignId: campaign.body.campaign_id });
    await releasePhoneNumber(deps, { accountId, phone_number: number });
    expect(await registered(number)).toBe(0);
  });
});

describe('a release racing a write that uses the number', () => {
  it('a dial stopped after writing its call: the release waits for it, then sees the call and refuses', async () => {
    const { accountId, number } = await accountWithNumber();
    const window = await holdWrites(databaseUrl, {
      table: 'calls',
      when: `NEW.from_number = '${number}'`,
      timing: 'AFTER',
    });
    try {
      const dial = dialFrom(accountId, number);
      await window.reached();
      const release = releasePhoneNumber(deps, { accountId, phone_number: number });
      const settled = release.then(
        () => 'released',
        (error: { code: string }) => error.code,
      );
      // The release waits on the dial's lock on the number, whatever the time given.
      expect(await Promise.race([settled, new Promise((r) => setTimeout(() => r('waiting'), 500))])).toBe(
        'waiting',
      );
      await window.release();
      await dial;
      expect(await settled).toBe('CONFLICT');
    } finally {
      await window.release();
    }
    expect([await registered(number), await callsFrom(number)]).toEqual([1, 1]);
  });

  it('a release stopped before its delete commits: the dial waits, then finds the number gone and writes nothing', async () => {
    const { accountId, number } = await accountWithNumber();
    const window = await holdWrites(databaseUrl, {
      table: 'phone_numbers',
      when: `OLD.number = '${number}'`,
      events: 'DELETE',
    });
    try {
      const release = releasePhoneNumber(deps, { accountId, phone_number: number });
      await window.reached();
      const dial = dialFrom(accountId, number).then(
        () => 'dialed',
        (error: { code: string }) => error.code,
      );
      expect(await Promise.race([dial, new Promise((r) => setTimeout(() => r('waiting'), 500))])).toBe(
        'waiting',
      );
      await window.release();
      await release;
      expect(await dial).toBe('FORBIDDEN');
    } finally {
      await window.release();
    }
    expect([await registered(number), await callsFrom(number)]).toEqual([0, 0]);
  });

  it('a campaign stopped after writing its row: the release waits, then sees it and refuses', async () => {
    const { accountId, agentId, number } = await accountWithNumber();
    const window = await holdWrites(databaseUrl, {
      table: 'campaigns',
      when: `NEW.name = 'Racing'`,
      timing: 'AFTER',
    });
    try {
      const create = createCampaign(deps, {
        accountId,
        ...CreateCampaignInput.parse({
          name: 'Racing',
          agent_id: agentId,
          from_numbers: [number],
          contacts: [{ to_number: '+14155559997' }],
          draft: true,
        }),
      });
      await window.reached();
      const release = releasePhoneNumber(deps, { accountId, phone_number: number }).then(
        () => 'released',
        (error: { code: string }) => error.code,
      );
      expect(await Promise.race([release, new Promise((r) => setTimeout(() => r('waiting'), 500))])).toBe(
        'waiting',
      );
      await window.release();
      await create;
      expect(await release).toBe('CONFLICT');
    } finally {
      await window.release();
    }
    expect(await registered(number)).toBe(1);
  });
});
