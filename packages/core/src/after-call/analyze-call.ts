import { z } from 'zod';
import { extractedVariables, type AgentRow } from '../agents';
import type { CoreDeps, StructuredModel } from '../deps';
import { AppError } from '../errors';
import { transcriptText, type TranscriptEntry } from '../calls/conversation';

/** The analysis's JSON schema: a summary, the caller's gender where the words tell, each extracted variable. */
export function analysisSchema(variables: { name: string; description: string; required: boolean }[]) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['summary', 'detected_gender', 'vars_extracted'],
    properties: {
      summary: { type: 'string', description: 'Two or three sentences on what the call achieved' },
      detected_gender: {
        type: ['string', 'null'],
        enum: ['male', 'female', null],
        description: "The caller's gender where the conversation makes it plain; null otherwise",
      },
      vars_extracted: {
        type: 'object',
        additionalProperties: false,
        // Strict structured output names every property; an optional variable may be null.
        required: variables.map((variable) => variable.name),
        properties: Object.fromEntries(
          variables.map((variable) => [
            variable.name,
            { type: variable.required ? 'string' : ['string', 'null'], description: variable.description },
          ]),
        ),
      },
    },
  };
}

function analysisOutput(variables: { name: string; required: boolean }[]) {
  return z.object({
    summary: z.string().min(1),
    detected_gender: z.enum(['male', 'female']).nullable(),
    vars_extracted: z.object(
      Object.fromEntries(
        variables.map((variable) => [variable.name, variable.required ? z.string() : z.string().nullable()]),
      ),
    ),
  });
}

/** What the analysis found: the summary, the caller's gender where the words tell, the variables given. */
export interface CallAnalysis {
  summary: string;
  detectedGender: 'male' | 'female' | null;
  varsExtracted: Record<string, string>;
}

/**
 * The language model reads the transcript and answers in the schema built from the agent's current
 * `variables_extracted` (required ones never null). An answer that does not follow the schema throws,
 * to be retried like a provider failure.
 */
export async function analyzeTranscript(
  analyst: StructuredModel,
  agent: Pick<AgentRow, 'variablesExtracted' | 'prompt'>,
  transcript: TranscriptEntry[],
): Promise<CallAnalysis> {
  const variables = extractedVariables(agent);
  const answer = await analyst.structured(
    [
      {
        role: 'system',
        content:
          "You analyse phone calls an AI agent held. Summarise the call, and extract the variables from what was said. Never invent a value: use null when the call does not give one.\n\nThe agent's instructions were:\n" +
          agent.prompt,
      },
      { role: 'user', content: transcriptText(transcript) },
    ],
    { name: 'call_analysis', schema: analysisSchema(variables) },
  );
  const parsed = analysisOutput(variables).safeParse(answer);
  if (!parsed.success) throw new Error(`The analysis did not follow its schema: ${parsed.error.message}`);
  return {
    summary: parsed.data.summary,
    detectedGender: parsed.data.detected_gender,
    varsExtracted: Object.fromEntries(
      Object.entries(parsed.data.vars_extracted).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    ),
  };
}

/**
 * Post-call analysis of a live conversation (analyzeTranscript), once per call: a call analysed
 * already is left.
 */
export async function analyzeCall(
  deps: CoreDeps & { analyst?: StructuredModel },
  callId: string,
): Promise<{ analyzed: boolean }> {
  const call = await deps.db.call.findUnique({ where: { id: callId }, include: { agent: true } });
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  if (!call.conversationEndedAt || call.summary !== null || !call.agent || !deps.analyst)
    return { analyzed: false };
  const transcript = call.transcript as unknown as TranscriptEntry[];
  if (transcript.length === 0) return { analyzed: false };
  const analysis = await analyzeTranscript(deps.analyst, call.agent, transcript);
  await deps.db.call.updateMany({
    where: { id: callId, summary: null },
    data: {
      summary: analysis.summary,
      varsExtracted: analysis.varsExtracted,
      detectedGender: analysis.detectedGender,
    },
  });
  return { analyzed: true };
}
