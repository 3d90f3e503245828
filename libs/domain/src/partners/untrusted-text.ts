/**
 * Display text from outside (a partner's answer, a school's catalog entry) is
 * shown by affiliates to consumers: consent statements, school, program and
 * question labels. Such text must be plain text (docs/security.md, "Partners
 * and untrusted text"). What makes it markup:
 * - `tag`: a `<` that an HTML tokenizer reads as the start of a tag, an end
 *   tag, a comment or a declaration (`<` then a letter, `/`, `!` or `?`);
 *   `a < b` and `<3` stay text;
 * - `script_url`: a `javascript:` or `vbscript:` URL, or a `data:` URL with a
 *   media type, also spelled with blanks or control characters between its
 *   letters, as browsers allow;
 * - `event_handler`: an `on…=` attribute such as `onerror=`, which text
 *   pasted into an attribute would turn into script.
 * HTML character references count as the characters they stand for.
 */
export type MarkupKind = 'tag' | 'script_url' | 'event_handler';

const TAG = /<[A-Za-z!/?]/;
/** Browsers skip blanks, line breaks and other control characters inside a URL scheme. */
const GAP = '[\\s\\u0000-\\u001f]*';
const spaced = (word: string) => [...word].join(GAP);
/** A scheme starts a word (`metadata:` is no `data:`); `data:` counts with a media type after it (`data:text/html`), so "your data: …" stays text. */
const SCRIPT_URL = new RegExp(
  `(?<![a-z0-9+.-])(?:${spaced('javascript')}|${spaced('vbscript')})${GAP}:|(?<![a-z0-9+.-])${spaced('data')}${GAP}:${GAP}[a-z]+/`,
  'i',
);
const EVENT_HANDLER = /\bon[a-z]{3,}\s*=/i;
const REFERENCE = /&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi;
const NAMED: Record<string, string> = {
  lt: '<',
  gt: '>',
  colon: ':',
  tab: '\t',
  newline: '\n',
  equals: '=',
  amp: '&',
  quot: '"',
  apos: "'",
};

/** The first kind of markup in `text`, or null for plain text. */
export function markupIn(text: string): MarkupKind | null {
  const decoded = decodeReferences(text);
  for (const t of decoded === text ? [text] : [text, decoded]) {
    if (TAG.test(t)) return 'tag';
    if (SCRIPT_URL.test(t)) return 'script_url';
    if (EVENT_HANDLER.test(t)) return 'event_handler';
  }
  return null;
}

/** Numeric references and the few named ones that could spell markup, decoded (others kept as written). */
function decodeReferences(text: string): string {
  return text.replace(REFERENCE, (whole, ref: string) => {
    const lower = ref.toLowerCase();
    if (lower.startsWith('#')) {
      const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[lower] ?? whole;
  });
}
