// `{{name}}` placeholders: pure text helpers that run anywhere (the dashboard's flow builder too).

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** `{{name}}` placeholders take the call's variables; one without a value stays as written. */
export function fillVariables(text: string, vars: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => vars[name] ?? whole);
}

/** The names of the placeholders a text still holds (after filling: those without a value). */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}
