import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startLlmEmulator, type LlmEmulator, type LlmReply } from './llm-emulator';

/** The emulator through the official openai package, as the media server talks to a real provider. */

let emulator: LlmEmulator | undefined;
afterEach(async () => {
  await emulator?.stop();
  emulator = undefined;
});

async function clientFor(reply: (index: number) => LlmReply) {
  emulator = await startLlmEmulator({ apiKey: 'sk-test', reply: (_, index) => reply(index) });
  return new OpenAI({ apiKey: 'sk-test', baseURL: emulator.baseUrl, maxRetries: 0, timeout: 2_000 });
}

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'end_call',
      parameters: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] },
    },
  },
];

describe('the OpenAI-compatible emulator', () => {
  it('streams the scripted words in chunks, then a tool call whose arguments arrive in pieces', async () => {
    const openai = await clientFor(() => ({
      say: 'Thank you for your time, goodbye.',
      toolCalls: [{ name: 'end_call', arguments: { reason: 'the caller confirmed the appointment' } }],
    }));
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'Yes, Tuesday works.' }],
      tools,
    });
    let text = '';
    let textChunks = 0;
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0]!;
      if (choice.delta.content) {
        text += choice.delta.content;
        textChunks += 1;
      }
      for (const call of choice.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(text).toBe('Thank you for your time, goodbye.');
    expect(textChunks).toBeGreaterThan(1);
    expect(name).toBe('end_call');
    expect(JSON.parse(args)).toEqual({ reason: 'the caller confirmed the appointment' });
    expect(finish).toBe('tool_calls');
    expect(emulator!.requests[0]).toMatchObject({ model: 'gpt-4o-mini', stream: true, tools });
  });

  it('answers a request without streaming as one completion (structured output)', async () => {
    const openai = await clientFor(() => ({ say: '{"summary":"Booked for Tuesday."}' }));
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Summarise.' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'analysis', schema: { type: 'object' }, strict: true },
      },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ summary: 'Booked for Tuesday.' });
  });

  it('refuses a wrong key, fails as scripted, and holds a request it was told to hang on', async () => {
    const openai = await clientFor((index) => (index === 0 ? { status: 500 } : { hang: true }));
    const ask = (client: OpenAI) =>
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    await expect(ask(openai)).rejects.toMatchObject({ status: 500 });
    await expect(ask(openai)).rejects.toThrow(/timed out/i);
    const wrongKey = new OpenAI({ apiKey: 'sk-wrong', baseURL: emulator!.baseUrl, maxRetries: 0 });
    await expect(ask(wrongKey)).rejects.toMatchObject({ status: 401 });
  });

  it('embeds texts as the embeddings API does: near for texts that share words, apart for others', async () => {
    const openai = await clientFor(() => ({ say: '' }));
    const answer = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['Where can I park?', 'Free parking behind the building.', 'We open at eight on Mondays.'],
    });
    expect(answer.data.map((item) => item.index)).toEqual([0, 1, 2]);
    const [question, parking, hours] = answer.data.map((item) => item.embedding);
    expect(question).toHaveLength(256);
    const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);
    expect(cosine(question!, question!)).toBeCloseTo(1, 5);
    expect(cosine(question!, parking!)).toBeGreaterThan(cosine(question!, hours!));
    const single = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'Where can I park?',
    });
    expect(single.data[0]!.embedding).toEqual(question);
  });
});
