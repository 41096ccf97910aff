import { z } from 'zod';
import { ServiceEnv, parseConfig } from '@voice/core';

const Env = ServiceEnv.extend({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Base URL clients reach the API at, for the links it hands out (recording URLs). */
  PUBLIC_URL: z.url().optional(),
});
export type ApiEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): ApiEnv {
  return parseConfig(Env, source, 'api');
}
