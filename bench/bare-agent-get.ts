// The physical limit of agent-get on this stack: a bare Fastify route that runs the same Prisma query
// as agent-get (the agent with its voice, account and webhooks, by id within the account) through a
// pool of the same size, and sends the row as JSON. No authentication, rate limits, validation or
// shaping: what is left is Fastify, Prisma, pg and Postgres. Listens on PORT; prints nothing.
import Fastify from 'fastify';
import { agentInclude } from '@voice/core';
import { createDb } from '@voice/db';

const db = createDb(process.env.DATABASE_URL!, {
  maxConnections: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
const accountId = process.env.BENCH_ACCOUNT_ID!;
const app = Fastify();
app.get<{ Params: { id: string } }>('/agent/:id', async (request) =>
  db.agent.findFirst({ where: { id: request.params.id, accountId }, include: agentInclude }),
);
app.get('/healthz', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
