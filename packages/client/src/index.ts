import { createTRPCClient, httpBatchLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from '@voice/trpc';

export type { AppRouter };

export interface VoiceClientOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** An API key (`vk_live_...`) or a dashboard JWT. */
  token: string;
  fetch?: typeof globalThis.fetch;
}

/** A typed tRPC client: `client.phoneNumbers.list.query()`, with inputs and outputs checked at compile time. */
export function createVoiceClient({ baseUrl, token, fetch }: VoiceClientOptions): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${baseUrl.replace(/\/$/, '')}/trpc`,
        headers: () => ({ authorization: `Bearer ${token}` }),
        fetch,
      }),
    ],
  });
}
export * from './webhooks.js';
