import { getSession, requireCsrfToken, SignInInput, signIn, signOut } from '@voice/core';
import { publicProcedure, router } from '../trpc';

/** The dashboard's sign-in: the session itself travels in an HttpOnly cookie the page never sees. */
export const sessionRouter = router({
  signIn: publicProcedure.input(SignInInput).mutation(async ({ ctx, input }) => {
    const { token, session } = await signIn(ctx.deps, input, { clientIp: ctx.clientIp });
    ctx.setSessionCookie?.(token);
    return session;
  }),
  get: publicProcedure.query(({ ctx }) => getSession(ctx.deps, ctx.sessionToken)),
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    requireCsrfToken(ctx.deps, ctx.sessionToken, ctx.csrfToken);
    await signOut(ctx.deps, ctx.sessionToken);
    ctx.setSessionCookie?.(null);
    return { signed_out: true };
  }),
});
