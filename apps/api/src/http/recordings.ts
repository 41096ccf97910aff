import type { FastifyInstance } from 'fastify';
import { getRecording, type CoreDeps } from '@voice/core';

/** Signed links handed out as `recording_url`: the signature is the credential, valid one hour. */
export function registerRecordings(app: FastifyInstance, core: CoreDeps): void {
  app.get<{ Params: { call_id: string }; Querystring: { expires?: string; signature?: string } }>(
    '/recordings/:call_id',
    async (request, reply) => {
      const recording = await getRecording(core, {
        callId: request.params.call_id,
        expires: request.query.expires ?? '',
        signature: request.query.signature ?? '',
      });
      return reply
        .type('audio/wav')
        .header('cache-control', 'private, max-age=3600')
        .header('content-length', recording.size)
        .send(recording.body);
    },
  );
}
