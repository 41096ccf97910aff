import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  answerTwilioCall,
  receiveTransferCallback,
  receiveTwilioCallback,
  TWILIO_PATHS,
  type CoreDeps,
  type TwilioCallbackKind,
} from '@voice/core';

type FormRequest = FastifyRequest<{ Body: Record<string, string> | undefined }>;

/**
 * The carrier's callbacks (docs/telephony.md): form-encoded, authenticated by their signature alone.
 * A call's status and machine-detection callbacks, a number's own status callback, a warm transfer's
 * colleague's status callback, and the numbers' voice webhook (an incoming call, answered with TwiML).
 */
export function registerCarrierCallbacks(app: FastifyInstance, core: CoreDeps): void {
  app.register(async (carrier) => {
    carrier.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const twilioRequest = (request: FormRequest) => {
      const signature = request.headers['x-twilio-signature'];
      return {
        // Twilio signs the URL it was given: the public URL the service configured, not this host.
        url: `${(core.config.publicUrl ?? '').replace(/\/$/, '')}${request.url}`,
        signature: typeof signature === 'string' ? signature : undefined,
        params: request.body ?? {},
      };
    };
    const callbacks: [path: string, kind: TwilioCallbackKind][] = [
      [`${TWILIO_PATHS.status}/:call_id`, 'status'],
      [`${TWILIO_PATHS['machine-detection']}/:call_id`, 'machine-detection'],
      // A number's own status callback (incoming calls): the call is found by its CallSid.
      [TWILIO_PATHS.status, 'status'],
    ];
    for (const [path, kind] of callbacks)
      carrier.post<{ Params: { call_id?: string }; Body: Record<string, string> | undefined }>(
        path,
        async (request, reply) => {
          const callId = request.params.call_id ?? null;
          try {
            await receiveTwilioCallback(core, kind, { callId, ...twilioRequest(request) });
          } catch (error) {
            request.log.warn({ err: error, callId, kind }, 'carrier callback refused');
            throw error;
          }
          return reply.code(204).send();
        },
      );
    // A warm transfer's call to the colleague: its progress moves the transfer on.
    carrier.post<{ Params: { transfer_id: string }; Body: Record<string, string> | undefined }>(
      `${TWILIO_PATHS['transfer-status']}/:transfer_id`,
      async (request, reply) => {
        const transferId = request.params.transfer_id;
        try {
          await receiveTransferCallback(core, transferId, twilioRequest(request));
        } catch (error) {
          request.log.warn({ err: error, transferId }, 'transfer callback refused');
          throw error;
        }
        return reply.code(204).send();
      },
    );
    carrier.post<{ Body: Record<string, string> | undefined }>(TWILIO_PATHS.voice, async (request, reply) => {
      let answer;
      try {
        answer = await answerTwilioCall(core, twilioRequest(request));
      } catch (error) {
        request.log.warn({ err: error }, 'incoming call refused');
        throw error;
      }
      if (answer.unknownNumber)
        request.log.warn({ to: request.body?.To }, 'incoming call to a number the service does not have');
      return reply.type('text/xml').send(answer.twiml);
    });
  });
}
