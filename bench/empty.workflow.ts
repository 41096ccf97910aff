/** The baseline: a workflow that does nothing, to measure what the Temporal server alone sustains. */
export async function emptyWorkflow(): Promise<void> {}
