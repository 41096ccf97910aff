export { appRouter, createCaller, type AppRouter } from './root';
export type { TrpcContext } from './context';
export { requestErrorBody } from './trpc';
