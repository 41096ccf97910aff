import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { AgentView } from '@voice/core';
import { loadCore, withAccount } from '../context';
import { printRecord, printRows } from '../output';
import { print } from '../io';

const COLUMNS = ['agent_id', 'name', 'agent_type', 'voice', 'language', 'webhooks', 'updated_at'];

interface AgentFieldOptions {
  account: string;
  json?: boolean;
  fromJson?: string;
  name?: string;
  prompt?: string;
  promptFile?: string;
  language?: string;
  voice?: string;
  welcomeMessage?: string;
}

async function readJsonFile(path: string, what: string): Promise<Record<string, unknown>> {
  const core = await loadCore();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new core.AppError('VALIDATION_FAILED', `Cannot read ${what} file ${path}`);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw new core.AppError('VALIDATION_FAILED', `${what} file ${path} must contain a JSON object`);
  }
}

/** An agent body from `--from-json` (the API's request body), with flags taking precedence. */
async function agentBody(options: AgentFieldOptions): Promise<Record<string, unknown>> {
  const body = options.fromJson ? await readJsonFile(options.fromJson, 'agent') : {};
  const prompt = options.promptFile ? await readFile(options.promptFile, 'utf8') : options.prompt;
  const flags: Record<string, unknown> = {
    name: options.name,
    prompt,
    language: options.language,
    voice: options.voice,
    welcome_message: options.welcomeMessage,
  };
  for (const [key, value] of Object.entries(flags)) if (value !== undefined) body[key] = value;
  return body;
}

function agentFieldOptions(command: Command): Command {
  return command
    .requiredOption('--account <id>', 'account id')
    .option('--from-json <file>', 'a JSON file with the request body (variables, webhooks, ...)')
    .option('--name <name>', 'display name')
    .option('--prompt <text>', 'system prompt')
    .option('--prompt-file <file>', 'read the system prompt from a file')
    .option('--language <code>', 'language code, e.g. he, en')
    .option('--voice <name>', 'voice display name, e.g. Ori')
    .option('--welcome-message <text>', 'first spoken message')
    .option('--json', 'print JSON');
}

const printAgent = (agent: AgentView, options: { json?: boolean }) =>
  options.json
    ? printRecord(agent, options)
    : printRecord(
        { ...agent, webhooks: agent.webhooks.map((w) => `${w.name} ${w.url}`).join('\n') },
        options,
      );

export function registerAgentCommands(program: Command): void {
  const agents = program.command('agents').description("Manage an account's agents");

  agents
    .command('list')
    .description('List agents, newest first')
    .requiredOption('--account <id>', 'account id')
    .option('--type <agent-type>', 'singlePrompt or conversationalFlow')
    .option('--limit <n>', 'at most this many (1-1000)', '1000')
    .option('--json', 'print JSON')
    .action((options: { account: string; type?: string; limit: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const query = core.parseInput(core.ListAgentsInput, {
          limit: options.limit,
          agent_type: options.type,
        });
        const { agents: rows, total_count } = await core.listAgents(deps, { accountId, ...query });
        if (options.json) return printRecord({ agents: rows, total_count }, options);
        printRows(
          rows.map((agent) => ({ ...agent, webhooks: agent.webhooks.length })),
          COLUMNS,
          options,
        );
        print(`${rows.length} of ${total_count} agent(s)`);
      }),
    );

  agents
    .command('get')
    .description('Show an agent')
    .argument('<agent-id>')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action((agentId: string, options: { account: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) =>
        printAgent(await core.getAgent(deps, { accountId, agentId }), options),
      ),
    );

  agentFieldOptions(agents.command('create').description('Create a prompt-based agent')).action(
    (options: AgentFieldOptions) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.CreateAgentInput, await agentBody(options));
        printAgent(await core.createAgent(deps, { accountId, ...input }), options);
      }),
  );

  agentFieldOptions(
    agents
      .command('modify')
      .description('Change the given fields of a prompt-based agent')
      .argument('<agent-id>'),
  ).action((agentId: string, options: AgentFieldOptions) =>
    withAccount(options.account, async (deps, accountId, core) => {
      const input = core.parseInput(core.ModifyAgentInput, await agentBody(options));
      printAgent(await core.modifyAgent(deps, { accountId, agentId, ...input }), options);
    }),
  );

  agents
    .command('duplicate')
    .description('Copy an agent completely under a new name')
    .argument('<agent-id>')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--name <name>', 'name of the copy')
    .option('--json', 'print JSON')
    .action((agentId: string, options: { account: string; name: string; json?: boolean }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        const input = core.parseInput(core.DuplicateAgentInput, { agent_name: options.name });
        printAgent(
          core.toAgentView(await core.duplicateAgent(deps, { accountId, agentId, ...input })),
          options,
        );
      }),
    );

  agents
    .command('create-flow')
    .description(
      'Create a conversationalFlow agent from a flow definition (JSON: start, nodes, edges; docs/flows.md), published as version 1',
    )
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--flow <file>', 'JSON file with the flow definition')
    .option('--language <code>', 'language code', 'he')
    .option('--voice <name>', 'voice display name', 'Ori')
    .option('--welcome-message <text>', 'first spoken message', '')
    .option('--json', 'print JSON')
    .action(
      (options: {
        account: string;
        name: string;
        flow: string;
        language: string;
        voice: string;
        welcomeMessage: string;
        json?: boolean;
      }) =>
        withAccount(options.account, async (deps, accountId, core) => {
          const input = core.parseInput(core.CreateFlowAgentInput, {
            name: options.name,
            language: options.language,
            voice: options.voice,
            welcome_message: options.welcomeMessage,
            flow: await readJsonFile(options.flow, 'flow'),
          });
          printAgent(await core.createFlowAgent(deps, { accountId, ...input }), options);
        }),
    );

  agents
    .command('export-flow')
    .description(
      "Print a flow agent's published flow as JSON (write-only values as null), for create-flow or the builder's import",
    )
    .argument('<agent-id>')
    .requiredOption('--account <id>', 'account id')
    .action((agentId: string, options: { account: string }) =>
      withAccount(options.account, async (deps, accountId, core) => {
        print(JSON.stringify(await core.exportFlow(deps, { accountId, agentId }), null, 2));
      }),
    );
}
