import { embed } from '@voice/provider-emulators';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../deps';
import { createTestDeps, seedAccount } from '../testing/deps';
import {
  addKnowledgeDocument,
  createKnowledgeBase,
  deleteKnowledgeDocument,
  listKnowledgeBases,
} from './knowledge-bases';
import { searchKnowledge } from './search-knowledge';
import { searchConfigFor } from './text-search';
import { passagesOf } from './passages';

let deps: CoreDeps;
let drop: () => Promise<void>;
let accountId: string;
let otherAccountId: string;

beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  drop = test.database.drop;
  accountId = (await seedAccount(deps, 'Clinic', ['+14155550120'])).account.id;
  otherAccountId = (await seedAccount(deps, 'Other', ['+14155550121'])).account.id;
});
afterAll(() => drop?.());

const CLINIC_MD = `# Opening hours

We are open Monday to Friday from 8 in the morning to 6 in the evening. On Sundays the clinic is closed.

# Parking

Free parking is available behind the building, on Herzl Street.
`;

/** A one-page PDF whose page shows `text` (Helvetica), with a correct cross-reference table. */
function pdfWith(text: string): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = body.length;
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const upload = (knowledgeBaseId: string, name: string, content: string | Buffer, contentType = '') =>
  addKnowledgeDocument(deps, {
    accountId,
    knowledge_base_id: knowledgeBaseId,
    name,
    content_type: contentType,
    data_base64: Buffer.from(content).toString('base64'),
  });

describe('knowledge bases', () => {
  it('chooses the text-search configuration by language, simple where PostgreSQL has none', () => {
    expect(searchConfigFor('en-US')).toBe('english');
    expect(searchConfigFor('es')).toBe('spanish');
    expect(searchConfigFor('he')).toBe('simple');
    expect(searchConfigFor('he-IL')).toBe('simple');
  });

  it('cuts a document into passages under their headings', () => {
    expect(passagesOf(CLINIC_MD)).toEqual([
      'Opening hours\nWe are open Monday to Friday from 8 in the morning to 6 in the evening. On Sundays the clinic is closed.',
      'Parking\nFree parking is available behind the building, on Herzl Street.',
    ]);
  });

  it('finds the passage that answers a question, and nothing for a question it does not answer', async () => {
    const base = await createKnowledgeBase(deps, { accountId, name: 'Clinic', language: 'en' });
    expect(await upload(base.id, 'clinic.md', CLINIC_MD)).toMatchObject({ passages: 2 });
    const ask = (query: string) => searchKnowledge(deps, { accountId, knowledgeBaseIds: [base.id], query });
    expect(await ask('Are you open on Sunday?')).toEqual([
      expect.stringContaining('On Sundays the clinic is closed.'),
    ]);
    expect(await ask('Where can I park my car?')).toEqual([expect.stringContaining('behind the building')]);
    expect(await ask('Who won the world cup?')).toEqual([]);
    expect(await ask('')).toEqual([]);
    // Another account's knowledge base finds nothing.
    expect(
      await searchKnowledge(deps, {
        accountId: otherAccountId,
        knowledgeBaseIds: [base.id],
        query: 'parking',
      }),
    ).toEqual([]);
  });

  it('reads HTML and PDF documents, and searches Hebrew with the simple configuration', async () => {
    const base = await createKnowledgeBase(deps, { accountId, name: 'Mixed', language: 'en' });
    await upload(
      base.id,
      'prices.html',
      '<html><body><h1>Prices</h1><p>A cleaning costs <b>300 shekels</b>.</p></body></html>',
    );
    await upload(
      base.id,
      'x-ray.pdf',
      pdfWith('An x-ray appointment takes twenty minutes.'),
      'application/pdf',
    );
    const ask = (query: string) => searchKnowledge(deps, { accountId, knowledgeBaseIds: [base.id], query });
    expect(await ask('How much does a cleaning cost?')).toEqual([expect.stringContaining('300 shekels')]);
    expect(await ask('How long does an x-ray appointment take?')).toEqual([
      expect.stringContaining('twenty minutes'),
    ]);
    const [listed] = (await listKnowledgeBases(deps, { accountId })).filter((entry) => entry.id === base.id);
    expect(listed?.documents.map((document) => [document.name, document.content_type])).toEqual([
      ['prices.html', 'text/html'],
      ['x-ray.pdf', 'application/pdf'],
    ]);

    const hebrew = await createKnowledgeBase(deps, { accountId, name: 'מרפאה', language: 'he' });
    await upload(hebrew.id, 'hours.txt', 'שעות הפתיחה: אנחנו פתוחים בימים ראשון עד חמישי, משמונה בבוקר.');
    const found = await searchKnowledge(deps, {
      accountId,
      knowledgeBaseIds: [hebrew.id],
      query: 'מתי אתם פתוחים בימים?',
    });
    expect(found).toEqual([expect.stringContaining('ראשון עד חמישי')]);
  });

  it('refuses what is not a document it can read, and deletes a document with its passages', async () => {
    const base = await createKnowledgeBase(deps, { accountId, name: 'Refusals', language: 'en' });
    await expect(upload(base.id, 'photo.png', 'PNG', 'image/png')).rejects.toThrow(
      'the document must be text, Markdown, HTML or PDF',
    );
    await expect(upload(base.id, 'empty.txt', '  \n ')).rejects.toThrow('the document holds no text');
    await expect(upload(base.id, 'broken.pdf', 'not a pdf', 'application/pdf')).rejects.toThrow(
      /^the PDF could not be read/,
    );
    expect(await deps.db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id } })).toBe(0);
    const { id } = await upload(base.id, 'parking.md', CLINIC_MD);
    await deleteKnowledgeDocument(deps, { accountId, knowledgeBaseId: base.id, documentId: id });
    expect(await deps.db.knowledgeChunk.count({ where: { knowledgeBaseId: base.id } })).toBe(0);
  });

  it('with an embeddings model, also finds passages by meaning, fused with the words; a failing model writes nothing', async () => {
    const embedder = {
      model: 'emulated',
      embed: async (texts: string[]) => texts.map((text) => Array.from(embed(text))),
    };
    const hybrid = { ...deps, embedder };
    const base = await createKnowledgeBase(deps, { accountId, name: 'Hybrid', language: 'en' });
    await addKnowledgeDocument(hybrid, {
      accountId,
      knowledge_base_id: base.id,
      name: 'clinic.md',
      content_type: 'text/markdown',
      data_base64: Buffer.from(CLINIC_MD).toString('base64'),
    });
    expect(
      await deps.db.knowledgeEmbedding.count({
        where: { chunk: { knowledgeBaseId: base.id }, model: 'emulated' },
      }),
    ).toBe(2);
    // No word of the question is in the document: full-text search alone finds nothing, meaning does.
    const ask = (on: CoreDeps, query: string) =>
      searchKnowledge(on, { accountId, knowledgeBaseIds: [base.id], query });
    expect(await ask(deps, 'Parkplatz?')).toEqual([]);
    expect(await ask(hybrid, 'Parkplatz?')).toEqual([expect.stringContaining('behind the building')]);
    expect(await ask(hybrid, 'Are you open on Sunday?')).toEqual([
      expect.stringContaining('On Sundays the clinic is closed.'),
    ]);
    expect(await ask(hybrid, 'Who won the world cup?')).toEqual([]);

    const failing = {
      ...deps,
      embedder: { model: 'emulated', embed: () => Promise.reject(new Error('model down')) },
    };
    const before = await deps.db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id } });
    await expect(
      addKnowledgeDocument(failing, {
        accountId,
        knowledge_base_id: base.id,
        name: 'more.md',
        content_type: 'text/markdown',
        data_base64: Buffer.from('# Prices\n\nA cleaning costs 300 shekels.').toString('base64'),
      }),
    ).rejects.toThrow('model down');
    expect(await deps.db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id } })).toBe(before);
  });
});
