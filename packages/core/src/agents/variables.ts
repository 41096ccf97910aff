import type { StoredExtractedVariable, StoredProvidedVariable } from './agent-view';
import type { ExtractedVariableInput, ProvidedVariableInput } from './schemas';

/** Stored variables always carry every field, so reads need no defaults. */
export const storedProvidedVariables = (list: ProvidedVariableInput[]): StoredProvidedVariable[] =>
  list.map((v) => ({ name: v.name, description: v.description ?? '', default: v.default ?? null }));

export const storedExtractedVariables = (list: ExtractedVariableInput[]): StoredExtractedVariable[] =>
  list.map((v) => ({ name: v.name, description: v.description ?? '', required: v.required ?? false }));
