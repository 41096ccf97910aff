/**
 * A document cut into passages for search: paragraphs joined up to about `size` characters, never
 * split mid-paragraph unless a paragraph alone is longer (then at sentence ends); each passage under a
 * Markdown heading starts with that heading, so a passage found alone still says what it is about.
 */
export function passagesOf(text: string, size = 800): string[] {
  const passages: string[] = [];
  let heading = '';
  let current = '';
  const flush = () => {
    if (current.trim()) passages.push(current.trim());
    current = '';
  };
  for (const block of text.split(/\n{2,}/)) {
    const paragraph = block.trim();
    if (!paragraph) continue;
    if (/^#{1,6}\s/.test(paragraph) && !paragraph.includes('\n')) {
      flush();
      heading = paragraph.replace(/^#+\s*/, '');
      continue;
    }
    const pieces =
      paragraph.length > size ? (paragraph.match(/[^.!?]+[.!?]+\s*|[^.!?]+$/g) ?? [paragraph]) : [paragraph];
    for (const piece of pieces) {
      if (current && current.length + piece.length > size) flush();
      if (!current && heading) current = `${heading}\n`;
      current += `${piece.trim()}\n`;
    }
  }
  flush();
  return passages;
}
