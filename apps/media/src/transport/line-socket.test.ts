import { waitFor } from '@voice/dev';
import type { SpeechToText } from '@voice/providers';
import { describe, expect, it } from 'vitest';
import { mediaTestHarness } from '../media-test-harness';

/**
 * A fault inside one conversation's message handling (a provider's client throwing as the caller's audio
 * comes) ends that conversation's stream, and nothing else: the media server holds every other call.
 */

const media = mediaTestHarness();
const { start, answeredCall, connect } = media;

describe("a line's connection", () => {
  it('closes alone with 1011 when its handling throws; the server and the other calls go on', async () => {
    // The first stream's speech-to-text throws on the caller's audio, as a client whose socket was
    // closing did; the others' hear nothing.
    let opened = 0;
    const stt: SpeechToText = {
      open: async () => {
        const failing = opened++ === 0;
        return {
          send: () => {
            if (failing) throw new Error('Socket is not open.');
          },
          close: async () => {},
        };
      },
    };
    await start({ heard: [], reply: () => ({ say: 'Hi.' }), stt });
    const failing = connect(await answeredCall({ welcomeMessage: 'Hello.' }), [{ pauseMs: 30_000 }]);
    await waitFor('the failing stream to be closed', 10_000, async () => failing.record.closed !== null);
    expect(failing.record.closed).toMatchObject({ code: 1011, by: 'service' });

    const other = connect(await answeredCall({ welcomeMessage: 'Hello again.' }), [{ pauseMs: 30_000 }]);
    await waitFor('the next call to hear its welcome', 20_000, async () =>
      other.record.marks.some((mark) => mark.echoedAt !== null),
    );
    expect(other.record.closed).toBeNull();
  });
});
