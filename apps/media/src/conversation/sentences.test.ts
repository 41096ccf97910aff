import type { LanguageModel, LlmEvent } from '@voice/providers';
import { describe, expect, it } from 'vitest';
import { streamReply } from './model-reply';
import { firstClause, splitSentences } from './sentences';

/** A model that writes these pieces, one event each. */
const writing = (...pieces: string[]): LanguageModel => ({
  async *reply(): AsyncIterable<LlmEvent> {
    for (const text of pieces) yield { type: 'text', text };
  },
  structured: () => Promise.reject(new Error('not asked')),
});

const spoken = async (...pieces: string[]) => {
  const said: string[] = [];
  const request = { history: [], tools: [], signal: new AbortController().signal, model: null };
  const { text } = await streamReply(writing(...pieces), request, (sentence) => void said.push(sentence));
  return { said, text };
};

describe('what the agent speaks as the model writes', () => {
  it('cuts sentences as they end, a number or an abbreviation in them whole', () => {
    expect(splitSentences('Sure. It costs 1,000.50 dollars! And then')).toEqual({
      sentences: ['Sure.', 'It costs 1,000.50 dollars!'],
      rest: 'And then',
    });
  });

  it('takes the first clause of two words or more, not one word or a number', () => {
    expect(firstClause('Of course, which day')).toEqual({ clause: 'Of course,', rest: 'which day' });
    expect(firstClause('So, which day')).toBeNull();
    expect(firstClause('It costs 1,000 dollars')).toBeNull();
    expect(firstClause('Of course')).toBeNull();
  });

  it('speaks the first sentence’s first clause as soon as it is written, then whole sentences', async () => {
    expect(await spoken('Of course, which', ' day suits you? On Monday, we open', ' at eight.')).toEqual({
      said: ['Of course,', 'which day suits you?', 'On Monday, we open at eight.'],
      text: 'Of course, which day suits you? On Monday, we open at eight.',
    });
    // A first sentence written at once is spoken whole.
    expect((await spoken('Yes, we do. ', 'Anything else?')).said).toEqual(['Yes, we do.', 'Anything else?']);
  });
});
