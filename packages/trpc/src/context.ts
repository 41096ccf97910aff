import type { CoreDeps, FlowModel } from '@voice/core';

/** What every procedure sees; the HTTP adapter (apps/api) builds it per request. */
export interface TrpcContext {
  deps: CoreDeps;
  requestId: string;
  authorization: string | undefined;
  /** The client's address (Fastify's `request.ip`): sign-in attempts are limited per address. */
  clientIp?: string | undefined;
  /** The dashboard's session cookie, when the request carries one (browsers only). */
  sessionToken?: string | undefined;
  /** The `x-csrf-token` header: required with the session cookie on every mutation. */
  csrfToken?: string | undefined;
  /** Sets a response header (RateLimit-*); absent for server-side callers. */
  setHeader?: (name: string, value: string) => void;
  /**
   * Voices saying a sample sentence, through the deployment's text-to-speech (the dashboard's play
   * button); absent where the process has no speech configured.
   */
  voiceSamples?:
    { sample(voice: string, language: string): Promise<{ text: string; wav: Buffer }> } | undefined;
  /** The language model of the flow builder's text chat; absent where the process has none configured. */
  flowModel?: FlowModel | undefined;
  /** Sets or clears (null) the session cookie; absent for server-side callers. */
  setSessionCookie?: (token: string | null) => void;
}
