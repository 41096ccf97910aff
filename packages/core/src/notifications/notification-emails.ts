import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CoreDeps } from '../deps';
import { inAccount } from '../scope';
import type { Mailer } from './mailer';

/** How an email about a call's end reads: the outcome, the summary, and a link to the call. */
function composeEmail(
  call: {
    id: string;
    status: string;
    disconnectionReason: string | null;
    fromNumber: string;
    toNumber: string;
    summary: string | null;
    createdAt: Date;
    connectedAt: Date | null;
    endedAt: Date | null;
    agentVersion: number;
    agent: { name: string };
  },
  publicUrl: string,
) {
  const outcome = call.disconnectionReason ? `${call.status} (${call.disconnectionReason})` : call.status;
  const talkSeconds =
    call.connectedAt && call.endedAt ? (call.endedAt.getTime() - call.connectedAt.getTime()) / 1000 : 0;
  const subject = `Call ${outcome}: ${call.agent.name} with ${call.toNumber}`;
  const text = [
    `Agent:    ${call.agent.name} (version ${call.agentVersion})`,
    `From:     ${call.fromNumber}`,
    `To:       ${call.toNumber}`,
    `Outcome:  ${outcome}`,
    `Placed:   ${call.createdAt.toISOString()}`,
    `Talk:     ${talkSeconds.toFixed(1)} s`,
    '',
    'Summary:',
    call.summary ?? '(none: the call did not connect)',
    '',
    `Call: ${publicUrl.replace(/\/$/, '')}/functions/v1/call-get/${call.id}`,
    '',
  ].join('\n');
  return { subject, text };
}

/**
 * Records one email per address of the agent's `notification_emails` (once per call and address).
 * With a mailer they are `pending` and returned for sending; without one (the embedded default) they
 * are kept in the outbox.
 */
export async function recordCallEndedEmails(
  { db, config }: CoreDeps,
  { callId, smtp }: { callId: string; smtp: boolean },
): Promise<string[]> {
  const call = await db.call.findUniqueOrThrow({
    where: { id: callId },
    include: { agent: { select: { name: true, notificationEmails: true } } },
  });
  const { agent, agentId } = call;
  const addresses = [...new Set(agent?.notificationEmails ?? [])];
  if (agent && agentId && addresses.length > 0) {
    const { subject, text } = composeEmail(
      { ...call, agent, agentVersion: call.agentVersion ?? 1 },
      config.publicUrl ?? '',
    );
    await db.notificationEmail.createMany({
      data: addresses.map((toAddress) => ({
        id: randomUUID(),
        accountId: call.accountId,
        agentId,
        callId,
        toAddress,
        subject,
        body: text,
        status: smtp ? ('pending' as const) : ('outbox' as const),
      })),
      skipDuplicates: true,
    });
  }
  // Without SMTP the rows are the outbox: nothing is pending.
  if (!smtp) return [];
  const pending = await db.notificationEmail.findMany({
    where: { callId, status: 'pending' },
    select: { id: true },
    orderBy: { toAddress: 'asc' },
  });
  return pending.map((email) => email.id);
}

/**
 * Sends one pending email. A failure is recorded on the row and thrown, so the workflow's retry
 * policy tries again; a sent or failed email is not sent again.
 */
export async function sendNotificationEmail(
  { db, clock, mailer }: CoreDeps & { mailer?: Mailer },
  emailId: string,
): Promise<string> {
  const email = await db.notificationEmail.findUniqueOrThrow({ where: { id: emailId } });
  if (email.status !== 'pending') return email.status;
  if (!mailer) {
    // The worker lost its SMTP configuration since the email was recorded: keep it in the outbox.
    await db.notificationEmail.update({ where: { id: emailId }, data: { status: 'outbox' } });
    return 'outbox';
  }
  try {
    await mailer.send({ to: email.toAddress, subject: email.subject, text: email.body });
  } catch (error) {
    await db.notificationEmail.update({
      where: { id: emailId },
      data: {
        attempts: { increment: 1 },
        lastError: String((error as Error).message ?? error).slice(0, 500),
      },
    });
    throw error;
  }
  await db.notificationEmail.update({
    where: { id: emailId },
    data: { status: 'sent', sentAt: clock.now(), attempts: { increment: 1 } },
  });
  return 'sent';
}

/** After the last attempt failed. */
export async function failNotificationEmail({ db }: CoreDeps, emailId: string): Promise<void> {
  await db.notificationEmail.updateMany({
    where: { id: emailId, status: 'pending' },
    data: { status: 'failed' },
  });
}

export const ListEmailsInput = z.object({
  call_id: z.uuid('must be a UUID').optional(),
  status: z.enum(['outbox', 'pending', 'sent', 'failed']).optional(),
  limit: z.number().int().min(1).max(1000).default(50),
});
export type ListEmailsInput = z.input<typeof ListEmailsInput>;

/** An account's notification emails, newest first: the outbox in embedded mode, a send log with SMTP. */
export async function listNotificationEmails(
  { db }: CoreDeps,
  { accountId, ...input }: { accountId: string } & ListEmailsInput,
) {
  const { call_id, status, limit } = ListEmailsInput.parse(input);
  const rows = await db.notificationEmail.findMany({
    where: inAccount(accountId, { ...(call_id ? { callId: call_id } : {}), ...(status ? { status } : {}) }),
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
  return rows.map((row) => ({
    email_id: row.id,
    call_id: row.callId,
    agent_id: row.agentId,
    to: row.toAddress,
    subject: row.subject,
    body: row.body,
    status: row.status,
    attempts: row.attempts,
    last_error: row.lastError,
    sent_at: row.sentAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  }));
}
