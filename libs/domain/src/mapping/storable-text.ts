/**
 * NUL and unpaired surrogates parse as JSON but PostgreSQL refuses them in
 * text and jsonb, where what a school or partner said is stored (results,
 * delivery attempts): such a value would fail the write on every retry.
 */
// eslint-disable-next-line no-control-regex -- NUL is the very character PostgreSQL refuses in text; matching it is the point.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

export function isStorable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** The text with every NUL and broken surrogate replaced by U+FFFD. */
export function storable(text: string): string {
  return text.replace(UNSTORABLE_ALL, '\ufffd');
}
