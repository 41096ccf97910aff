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

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** `{{name}}` placeholders take the call's variables; one without a value stays as written. */
export function fillVariables(text: string, vars: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => vars[name] ?? whole);
}

/** The names of the placeholders a text still holds (after filling: those without a value). */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}
