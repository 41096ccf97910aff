export const env = {
  /** Use this Temporal frontend instead of starting a dev server. */
  temporalAddress: process.env.TEMPORAL_ADDRESS || undefined,
  /** Web UI of the server at TEMPORAL_ADDRESS, for printing only. */
  temporalUiUrl: process.env.TEMPORAL_UI_URL || undefined,
  path: process.env.PATH ?? '',
  /** The package manager that started this script (pnpm sets it for `pnpm run`). */
  npmExecPath: process.env.npm_execpath || undefined,
  /** `pnpm dev`'s state folder instead of `.data/`. */
  devDataDir: process.env.DEV_DATA_DIR || undefined,
  /** Where the Go-built tools are kept instead of `$XDG_CACHE_HOME/voice-agent-calling` (paths.ts). */
  toolsCacheDir: process.env.VOICE_TOOLS_CACHE || undefined,
  xdgCacheHome: process.env.XDG_CACHE_HOME || undefined,
  /** `compiled`: test processes run the built services (`pnpm test` sets it). */
  servicesBuild: process.env.VOICE_SERVICES_BUILD || undefined,
};

/** This process's environment plus `extra`, for the programs it runs (the Go toolchain, services under test). */
export const childEnvironment = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  ...extra,
});
