import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type Db = PrismaClient;

export interface CreateDbOptions {
  /** Pool size. */
  maxConnections?: number;
}

export function createDb(connectionString: string, options: CreateDbOptions = {}): Db {
  const adapter = new PrismaPg({ connectionString, max: options.maxConnections ?? 10 });
  return new PrismaClient({ adapter });
}
