import type { Command } from 'commander';
import type { Campaign, CoreDeps } from '@voice/core';
import { CONTACTS_HEADER_PROBLEM, contactFromCsv, type CsvContact } from '@voice/core/csv';
import { withAccount, type Core } from '../context';
import { readCsv } from '../csv';
import { printRecord, printRows } from '../output';
import { progressBar } from '../progress';
import { print, printError } from '../io';

const BATCH = 1000;
const COLUMNS = ['campaign_id', 'name', 'status', 'total', 'queued', 'calling', 'completed', 'created_at'];
const collect = (value: string, previous: string[]) => [...previous, value];

/** `mon-fri 09:00-17:00` or `sat,sun 10:00-14:00`. */
function parseWindow(core: Core, text: string) {
  const match = /^([a-z,-]+)\s+(\d\d:\d\d(?::\d\d)?)-(\d\d:\d\d(?::\d\d)?)$/i.exec(text.trim());
  if (!match)
    throw new core.AppError('VALIDATION_FAILED', `--window "${text}": expected e.g. "mon-fri 09:00-17:00"`);
  const week = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const days = match[1]!
    .toLowerCase()
    .split(',')
    .flatMap((part) => {
      const [from, to] = part.split('-');
      if (!to) return [from];
      const start = week.indexOf(from!);
      const end = week.indexOf(to);
      if (start < 0 || end < start) return [part];
      return week.slice(start, end + 1);
    });
  return { days, start: match[2], end: match[3] };
}

interface ContactRow {
  line: number;
  contact: CsvContact;
}

/**
 * Reads the whole CSV once to check it: a header with `to_number`, optional `timezone`, every other
 * column a variable. Returns the rows, or throws listing the bad lines (nothing is written then).
 */
async function readContacts(core: Core, path: string, defaultTimezone: string): Promise<ContactRow[]> {
  const rows: ContactRow[] = [];
  const problems: { line: number; reason: string }[] = [];
  let header: string[] = [];
  for await (const item of readCsv(path)) {
    if ('header' in item) {
      header = item.header;
      if (!header.includes('to_number'))
        throw new core.AppError('VALIDATION_FAILED', `${path}: ${CONTACTS_HEADER_PROBLEM}`);
      continue;
    }
    const contact = contactFromCsv(header, item.fields);
    if (typeof contact === 'string') problems.push({ line: item.line, reason: contact });
    else rows.push({ line: item.line, contact });
  }
  const { rejected } = core.validateContacts(
    rows.map((row) => row.contact),
    defaultTimezone,
  );
  for (const { row, reason } of rejected) problems.push({ line: rows[row - 1]!.line, reason });
  if (problems.length > 0) {
    const listed = problems
      .sort((a, b) => a.line - b.line)
      .slice(0, 50)
      .map((p) => `line ${p.line}: ${p.reason}`);
    throw new core.AppError(
      'VALIDATION_FAILED',
      `${path}: ${problems.length} bad row(s), nothing was created:\n  ${listed.join('\n  ')}`,
    );
  }
  return rows;
}

function summaryRow(campaign: Campaign) {
  return { ...campaign, total: campaign.counts.total, ...campaign.counts.by_state };
}

function progressDetail(campaign: Campaign) {
  const states = Object.entries(campaign.counts.by_state)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${state} ${count}`)
    .join(', ');
  return `${campaign.status}${states ? ` | ${states}` : ''}`;
}

/** Why the service paused the campaign, once per reason while watching. */
function reportPause(campaign: Campaign, shown: { reason: string | null }) {
  if (campaign.paused_reason === shown.reason) return;
  shown.reason = campaign.paused_reason;
  if (campaign.paused_reason) printError(`\npaused by the service: ${campaign.paused_reason}`);
}

async function watch(core: Core, deps: CoreDeps, accountId: string, campaignId: string, intervalMs: number) {
  const bar = progressBar('dialing');
  const shown = { reason: null as string | null };
  for (;;) {
    const campaign = await core.getCampaign(deps, { accountId, campaignId });
    reportPause(campaign, shown);
    const { total, by_state } = campaign.counts;
    bar.update(total - by_state.queued - by_state.calling, total, progressDetail(campaign));
    if (campaign.status === 'completed' || campaign.status === 'canceled' || campaign.status === 'draft') {
      bar.done();
      const outcomes = Object.entries(campaign.counts.by_outcome)
        .map(([outcome, count]) => `${outcome} ${count}`)
        .join(', ');
      print(`${campaign.status}${outcomes ? `: ${outcomes}` : ''}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export function registerCampaignCommands(program: Command): void {
  const campaigns = program.command('campaigns').description('Run outbound dial campaigns');

  campaigns
    .command('create')
    .description('Create a campaign from a CSV of contacts (to_number, optional timezone, variable columns)')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--name <name>', 'campaign name')
    .requiredOption('--agent <id>', 'agent that makes the calls')
    .requiredOption('--from <e164>', 'a number of the account to call from (repeatable: a pool)', collect, [])
    .requiredOption('--contacts <file.csv>', 'contacts; the header names the columns')
    .option('--timezone <iana>', 'timezone of contacts without one', 'UTC')
    .option('--window <spec>', 'calling window, e.g. "mon-fri 09:00-17:00" (repeatable)', collect, [])
    .option('--max-concurrent <n>', 'calls open at once', '10')
    .option('--dials-per-minute <n>', 'pacing limit')
    .option(
      '--retry-on <outcomes>',
      'comma-separated: busy, no_answer, error, voicemail, voicemail_left',
      'busy,no_answer',
    )
    .option('--max-attempts <n>', 'dials per contact at most', '3')
    .option('--retry-delay <seconds>', 'wait before a retry', '3600')
    .option('--start <iso>', 'do not dial before')
    .option('--end <iso>', 'do not dial after')
    .option('--draft', 'store it without launching (resume launches it)')
    .option('--json', 'print JSON')
    .action(
      (options: {
        account: string;
        name: string;
        agent: string;
        from: string[];
        contacts: string;
        timezone: string;
        window: string[];
        maxConcurrent: string;
        dialsPerMinute?: string;
        retryOn: string;
        maxAttempts: string;
        retryDelay: string;
        start?: string;
        end?: string;
        draft?: boolean;
        json?: boolean;
      }) =>
        withAccount(options.account, async (deps, accountId, core) => {
          const input = core.parseInput(core.CreateCampaignInput, {
            name: options.name,
            agent_id: options.agent,
            from_numbers: options.from,
            timezone: options.timezone,
            calling_windows: options.window.map((text) => parseWindow(core, text)),
            max_concurrent_calls: Number(options.maxConcurrent),
            dials_per_minute: options.dialsPerMinute ? Number(options.dialsPerMinute) : null,
            retry_policy: {
              retry_on: options.retryOn
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
              max_attempts: Number(options.maxAttempts),
              delay_seconds: Number(options.retryDelay),
            },
            schedule: {
              ...(options.start ? { start_at: options.start } : {}),
              ...(options.end ? { end_at: options.end } : {}),
            },
            draft: true,
          });
          const rows = await readContacts(core, options.contacts, input.timezone);
          const { body: draft } = await core.createCampaign(deps, { accountId, ...input });
          const bar = progressBar('uploading');
          const rejected: string[] = [];
          let uploaded = 0;
          for (let from = 0; from < rows.length; from += BATCH) {
            const batch = rows.slice(from, from + BATCH);
            const result = await core.addCampaignContacts(deps, {
              accountId,
              campaignId: draft.campaign_id,
              contacts: batch.map((row) => row.contact),
            });
            for (const { row, reason } of result.rejected)
              rejected.push(`line ${batch[row - 1]!.line}: ${reason}`);
            uploaded += batch.length;
            bar.update(uploaded, rows.length);
          }
          bar.done();
          const campaign = options.draft
            ? await core.getCampaign(deps, { accountId, campaignId: draft.campaign_id })
            : await core.resumeCampaign(deps, { accountId, campaignId: draft.campaign_id });
          if (rejected.length > 0) print(`${rejected.length} row(s) rejected:\n  ${rejected.join('\n  ')}`);
          printRecord(options.json ? campaign : summaryRow(campaign), options);
        }),
    );

  campaigns
    .command('watch')
    .description('Follow a campaign with a live progress bar and counts until it ends')
    .argument('<campaign-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--interval <ms>', 'how often to look', '1000')
    .action((campaignId: string, options: { account: string; interval: string }) =>
      withAccount(options.account, (deps, accountId, core) =>
        watch(core, deps, accountId, campaignId, Number(options.interval)),
      ),
    );

  campaigns
    .command('list')
    .requiredOption('--account <id>', 'account id')
    .option('--status <status>', 'only campaigns in this status')
    .option('--limit <n>', '1-1000', '50')
    .option('--json', 'print JSON')
    .action((options: { account: string; status?: string; limit: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.ListCampaignsInput, {
          status: options.status,
          limit: Number(options.limit),
        });
        const rows = await core.listCampaigns(deps, { accountId, ...input });
        printRows(options.json ? rows : rows.map(summaryRow), COLUMNS, options);
      }),
    );

  campaigns
    .command('get')
    .argument('<campaign-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((campaignId: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printRecord(await core.getCampaign(deps, { accountId, campaignId }), options),
      ),
    );

  for (const [verb, fn, description] of [
    ['pause', 'pauseCampaign', 'Stop new dials; calls in flight finish'],
    ['resume', 'resumeCampaign', 'Continue a paused campaign, or launch a draft'],
    ['cancel', 'cancelCampaign', 'Stop new dials and cancel the contacts still waiting'],
  ] as const) {
    campaigns
      .command(verb)
      .description(description)
      .argument('<campaign-id>')
      .requiredOption('--account <id>', 'account id')
      .option('--json', 'print JSON')
      .action((campaignId: string, options: { account: string; json?: boolean }) =>
        withAccount(options.account, async (deps, accountId, core) => {
          const campaign = await core[fn](deps, { accountId, campaignId });
          printRecord(options.json ? campaign : summaryRow(campaign), options);
        }),
      );
  }
}
