import { markupIn } from './untrusted-text';

describe('markupIn', () => {
  it('finds tags, script URLs and event handlers, however they are spelled', () => {
    expect(markupIn('<script>alert(1)</script>')).toBe('tag');
    expect(markupIn('Nursing <img src=x onerror=alert(1)>')).toBe('tag');
    expect(markupIn('</title>')).toBe('tag');
    expect(markupIn('<!-- x -->')).toBe('tag');
    expect(markupIn('&lt;script&gt;alert(1)')).toBe('tag');
    expect(markupIn('&#60;svg&#x3e;')).toBe('tag');
    expect(markupIn('javascript:alert(1)')).toBe('script_url');
    expect(markupIn('JaVa\tScRiPt :alert(1)')).toBe('script_url');
    expect(markupIn('java&#115;cript&colon;alert(1)')).toBe('script_url');
    expect(markupIn('vbscript:msgbox')).toBe('script_url');
    expect(markupIn('data:text/html;base64,PHNjcmlwdD4=')).toBe('script_url');
    expect(markupIn('" onerror="alert(1)')).toBe('event_handler');
    expect(markupIn("x' onMouseOver = 'steal()")).toBe('event_handler');
  });

  it('leaves plain text alone, comparisons, ampersands and colons included', () => {
    for (const text of [
      'By clicking Request Info I agree that Westlake College may contact me at the number I provided.',
      'GPA < 3.0 or > 2.5, and <3 our students',
      'Arts & Sciences; AT&T; R&amp;D',
      'Your data: we keep it for 30 days. Metadata: none.',
      'Online only = yes',
      'One = 1',
      'Hours: 9-5',
    ]) {
      expect(markupIn(text)).toBeNull();
    }
  });
});
