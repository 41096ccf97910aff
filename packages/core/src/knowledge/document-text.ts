import { AppError } from '../errors';

/**
 * A knowledge document's text, from what was uploaded: plain text and Markdown as they are (Markdown's
 * markup left for the passages to keep their headings), HTML as its readable text, PDF as the text of
 * its pages. A file that is none of these, or that holds no text, is refused.
 */

export const DOCUMENT_TYPES = ['text/plain', 'text/markdown', 'text/html', 'application/pdf'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** The type a file's name says, for uploads whose browser gave none. */
export function documentTypeOf(name: string, given: string): DocumentType | null {
  const declared = given.split(';')[0]!.trim().toLowerCase();
  if ((DOCUMENT_TYPES as readonly string[]).includes(declared)) return declared as DocumentType;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  const byExtension: Record<string, DocumentType> = {
    txt: 'text/plain',
    md: 'text/markdown',
    markdown: 'text/markdown',
    html: 'text/html',
    htm: 'text/html',
    pdf: 'application/pdf',
  };
  return (extension && byExtension[extension]) || null;
}

export async function documentText(type: DocumentType, data: Buffer): Promise<string> {
  let text: string;
  if (type === 'application/pdf') {
    try {
      // Each reader is loaded with the first document that needs it, not with the service.
      const { extractText, getDocumentProxy } = await import('unpdf');
      const pdf = await getDocumentProxy(new Uint8Array(data));
      text = (await extractText(pdf, { mergePages: true })).text;
    } catch (error) {
      throw new AppError('VALIDATION_FAILED', `the PDF could not be read: ${(error as Error).message}`);
    }
  } else {
    text = data.toString('utf8');
    if (type === 'text/html') {
      const { convert } = await import('html-to-text');
      text = convert(text, {
        wordwrap: false,
        selectors: [{ selector: 'a', options: { ignoreHref: true } }],
      });
    }
  }
  text = text
    // Control characters other than tabs and line breaks (a NUL among them, which Postgres cannot
    // store) carry no text: they go, as do halves of characters a PDF's text may hold.
    // eslint-disable-next-line no-control-regex -- exactly these are removed
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .replace(/\p{Cs}/gu, '\uFFFD')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  if (!text) throw new AppError('VALIDATION_FAILED', 'the document holds no text');
  return text;
}
