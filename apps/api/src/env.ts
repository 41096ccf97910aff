import { z } from 'zod';
import { checkServiceEnv, ServiceEnv, parseConfig } from '@voice/core';

const Env = ServiceEnv.extend({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
}).superRefine(checkServiceEnv);
export type ApiEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): ApiEnv {
  return parseConfig(Env, source, 'api');
}
