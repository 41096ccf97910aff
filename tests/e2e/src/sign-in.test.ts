import { SIGN_IN_REFUSED } from '@voice/core';
import { callApi, waitFor } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startDashboardStack, type DashboardStack } from './stack';

/**
 * The dashboard in a real browser against the compiled api and worker: signing in and out, pages
 * behind the session, errors beside the fields they belong to, and the session cookie's protections.
 */

let stack: DashboardStack;
const TERMINAL = ['ended', 'busy', 'no_answer', 'error', 'user_hangup', 'agent_hangup'];

beforeAll(async () => {
  stack = await startDashboardStack();
  const { api, demo } = stack;
  // One call to list: dialed with the demo key, simulated to its end.
  const dialed = await callApi(api.url, '/functions/v1/call-dial', {
    method: 'POST',
    key: demo.apiKey,
    body: { agent_id: demo.agentId, from_number: '+14155550100', to_number: '+14155550177' },
  });
  expect(dialed.status, dialed.text).toBe(201);
  const { call_id } = dialed.json as { call_id: string };
  await waitFor('the dialed call to end', 60_000, async () => {
    const call = await callApi(api.url, `/functions/v1/call-get/${call_id}`, { key: demo.apiKey });
    return TERMINAL.includes((call.json as { call_status: string }).call_status);
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${stack.output()}`);
  });
});

afterAll(async () => {
  await stack?.stop();
});

const newPage = () => stack.newPage();

describe('dashboard sign-in', () => {
  it('sends a signed-out browser to the sign-in page from every URL, and back after signing in', async () => {
    const { context, page } = await newPage();
    for (const path of [
      '/app',
      '/app/calls',
      '/app/agents',
      '/app/calls?status=ended',
      '/app/agents/new',
      '/app/campaigns',
      '/app/phone-numbers',
      '/app/do-not-call',
      '/app/test-contacts',
      '/app/api-keys',
      '/app/no-such-page',
    ]) {
      await page.goto(path);
      await expect.poll(() => new URL(page.url()).pathname).toBe('/app/sign-in');
      // The sign-in page's code loads when it is first opened (its own chunk).
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    }

    await page.goto('/app/agents');
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await signIn(page, stack.demo.login.email, stack.demo.login.password);
    await page.waitForURL('**/app/agents');
    await page.getByRole('cell', { name: 'Demo Receptionist' }).waitFor();
    await expect(page.getByRole('cell', { name: 'Flow', exact: true }).isVisible()).resolves.toBe(true);

    // The session is a cookie no script can read, sent over HTTPS only and never by another site.
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'voice_session', httpOnly: true, secure: true, sameSite: 'Strict' });
    expect(await page.evaluate('document.cookie')).toBe('');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/app/sign-in');
    await page.goto('/app/calls');
    await page.waitForURL(/\/app\/sign-in/);
    await context.close();
  });

  it('shows the API message beside the field it is about, and the refusal of a wrong password', async () => {
    const { context, page } = await newPage();
    await page.goto('/app/sign-in');
    await signIn(page, 'not-an-email', 'whatever');
    await expect.poll(() => page.getByText('email must be an email address').isVisible()).toBe(true);
    // The message is tied to the field for screen readers.
    const describedBy = await page.getByLabel('Email').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe('email must be an email address');

    await signIn(page, stack.demo.login.email, 'a wrong password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(SIGN_IN_REFUSED);
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it('lists calls with the filters of the API, kept in the URL', async () => {
    const { context, page } = await newPage();
    await page.goto('/app/calls');
    await signIn(page, stack.demo.login.email, stack.demo.login.password);
    await page.waitForURL('**/app/calls');
    await page.getByRole('cell', { name: '+14155550177' }).waitFor();
    await expect(page.getByText(/^1 calls/).isVisible()).resolves.toBe(true);

    await page.getByRole('combobox', { name: 'Direction' }).selectOption('incoming');
    await expect.poll(() => page.getByText('No calls match these filters.').isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get('direction')).toBe('incoming');
    await page.reload();
    await expect.poll(() => page.getByText('No calls match these filters.').isVisible()).toBe(true);
    await context.close();
  });

  it('refuses a state-changing request made with the cookie but without the CSRF token', async () => {
    const { context, page } = await newPage();
    await page.goto('/app/sign-in');
    await signIn(page, stack.demo.login.email, stack.demo.login.password);
    await page.waitForURL('**/app/calls');
    const status = await page.evaluate(async () => {
      const response = await fetch('/trpc/apiKeys.create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'forged' }),
      });
      return response.status;
    });
    expect(status).toBe(403);
    await context.close();
  });

  it('locks a user out after repeated failures, answering as for a wrong password', async () => {
    const { context, page } = await newPage();
    await page.goto('/app/sign-in');
    for (let attempt = 0; attempt < 5; attempt++) {
      await signIn(page, stack.demo.login.email, `wrong password ${attempt}`);
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(SIGN_IN_REFUSED);
    }
    // Locked out: the right password gets the answer a wrong one gets (nothing tells an email exists).
    const answered = page.waitForResponse((response) => response.url().includes('/trpc/session.signIn'));
    await signIn(page, stack.demo.login.email, stack.demo.login.password);
    expect((await answered).status()).toBe(401);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(SIGN_IN_REFUSED);
    expect(
      (await stack.database.db.user.findUniqueOrThrow({ where: { email: stack.demo.login.email } }))
        .lockedUntil,
    ).toBeInstanceOf(Date);
    expect(await context.cookies()).toEqual([]);
    await stack.database.db.user.update({
      where: { email: stack.demo.login.email },
      data: { failedSignIns: 0, lockedUntil: null },
    });
    await context.close();
  });
});
