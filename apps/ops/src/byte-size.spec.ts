import { formatBytes, formatCount } from './byte-size';

describe('sizes and counts for a terminal', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [81920, '80.0 KiB'],
    [13_107_200, '12.5 MiB'],
    [5 * 1024 ** 3, '5.0 GiB'],
    [3 * 1024 ** 5, '3072.0 TiB'],
  ])('%d bytes read %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));

  it('separates thousands', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(12)).toBe('12');
  });
});
