import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addPhoneNumber, createAccount, type CoreDeps } from '@voice/core';
import { createTestDeps } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceCli } from '../test/voice';

let database: TestDatabase;
let deps: CoreDeps;
let account: string;
let agent: string;

beforeAll(async () => {
  ({ deps, database } = await createTestDeps());
  account = (await createAccount(deps, { name: 'Campaigner' })).account.id;
  agent = (
    await deps.db.agent.create({
      data: { accountId: account, name: 'Bot', voiceId: 'he-ori', prompt: 'Hi.' },
    })
  ).id;
  await addPhoneNumber(deps, { accountId: account, phone_number: '+14155550150' });
});
afterAll(() => database.drop());

const voice = (...args: string[]) => voiceCli(database.url)(...args);
const csv = (name: string, text: string) => {
  const path = join(tmpdir(), `${name}-${process.pid}.csv`);
  writeFileSync(path, text);
  return path;
};
const create = (file: string, ...extra: string[]) =>
  voice(
    'campaigns',
    'create',
    '--account',
    account,
    '--name',
    'Spring',
    '--agent',
    agent,
    '--from',
    '+14155550150',
    '--contacts',
    file,
    '--window',
    'mon-fri 09:00-17:00',
    ...extra,
  );

describe('voice campaigns and dnc', () => {
  it('refuses a CSV with malformed or repeated rows, naming the lines, and writes nothing', async () => {
    const file = csv(
      'bad',
      'to_number,timezone,name\n+14155552001,America/New_York,Dana\n+14155552002,Nowhere,Eli\n"+14155552003,UTC,Fay\n12,UTC,Gil\n+14155552005,UTC\n+14155552001,UTC,Again\n',
    );
    const result = await create(file);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('5 bad row(s), nothing was created');
    expect(result.stderr).toContain('line 3: timezone: must be an IANA timezone');
    expect(result.stderr).toContain('line 4: expected 3 fields, found unbalanced quotes');
    expect(result.stderr).toContain('line 5: to_number must be a valid phone number');
    expect(result.stderr).toContain('line 6: expected 3 fields, found 2');
    expect(result.stderr).toContain('line 7: to_number +14155552001 repeats row 1');
    expect(await deps.db.campaign.count()).toBe(0);
  });

  it('creates from a CSV in batches with a progress bar, and pauses, resumes, cancels, lists and watches', async () => {
    const dnc = csv('dnc', 'phone_number\n+14155552099\n');
    const imported = await voice('dnc', 'import', dnc, '--account', account, '--json');
    expect(JSON.parse(imported.stdout)).toEqual({ added: 1, already_listed: 0 });

    const rows = Array.from({ length: 1205 }, (_, i) => `+1415555${String(3000 + i)},,Caller ${i}`);
    rows.push('+14155552099,,Listed');
    const file = csv('good', `to_number,timezone,name\n${rows.join('\n')}\n`);
    const created = await create(file, '--draft', '--json');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/uploading \[#+\] 100% 1206\/1206/);
    const campaign = JSON.parse(created.stdout.slice(created.stdout.indexOf('{'))) as {
      campaign_id: string;
      status: string;
      counts: { total: number; by_state: Record<string, number> };
      calling_windows: unknown;
    };
    expect(campaign).toMatchObject({
      status: 'draft',
      counts: { total: 1206, by_state: { queued: 1205, skipped_dnc: 1 } },
      calling_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
    });
    const contact = await deps.db.campaignContact.findFirstOrThrow({ where: { toNumber: '+14155553007' } });
    expect([contact.variables, contact.timezone, contact.position]).toEqual([{ name: 'Caller 7' }, 'UTC', 8]);

    const id = campaign.campaign_id;
    // Without TEMPORAL_ADDRESS the launch is left to the worker's relay.
    const resumed = await voice('campaigns', 'resume', id, '--account', account, '--json');
    expect(JSON.parse(resumed.stdout).status).toBe('running');
    expect(
      JSON.parse((await voice('campaigns', 'pause', id, '--account', account, '--json')).stdout).status,
    ).toBe('paused');
    const listed = await voice('campaigns', 'list', '--account', account);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('paused');
    const canceled = await voice('campaigns', 'cancel', id, '--account', account, '--json');
    expect(JSON.parse(canceled.stdout).counts.by_state).toMatchObject({ canceled: 1205, skipped_dnc: 1 });
    const watched = await voice('campaigns', 'watch', id, '--account', account);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(
      /dialing \[#+\] 100% 1206\/1206 canceled \| skipped_dnc 1, canceled 1205\ncanceled\n/,
    );

    expect((await voice('dnc', 'list', '--account', account)).stdout).toContain('+14155552099');
    expect((await voice('dnc', 'remove', '+14155552099', '--account', account)).code).toBe(0);
    const bad = await voice('dnc', 'add', '555', '--account', account);
    expect(bad.stderr).toContain('E.164');
  });
});
