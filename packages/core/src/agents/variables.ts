import {
  providedVariables,
  type AgentRow,
  type StoredExtractedVariable,
  type StoredProvidedVariable,
} from './agent-view';
import type { ExtractedVariableInput, ProvidedVariableInput } from './schemas';

/** Stored variables always carry every field, so reads need no defaults. */
export const storedProvidedVariables = (list: ProvidedVariableInput[]): StoredProvidedVariable[] =>
  list.map((v) => ({ name: v.name, description: v.description ?? '', default: v.default ?? null }));

export const storedExtractedVariables = (list: ExtractedVariableInput[]): StoredExtractedVariable[] =>
  list.map((v) => ({ name: v.name, description: v.description ?? '', required: v.required ?? false }));

// A call's variables: the agent's defaults under what the dial, the contact or the caller gave, filled into
// its prompt and welcome.

/** Variables whose names begin with `_` are call-local: never stored. */
export function storableVariables<T>(vars: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(vars).filter(([name]) => !name.startsWith('_')));
}

export function mergedVariables(
  agent: Pick<AgentRow, 'variablesProvided'>,
  given: Record<string, string>,
): Record<string, string> {
  const defaults = Object.fromEntries(
    providedVariables(agent)
      .filter((variable) => variable.default !== null)
      .map((variable) => [variable.name, variable.default as string]),
  );
  return storableVariables({ ...defaults, ...given });
}

export { fillVariables, placeholdersIn } from './placeholders';
