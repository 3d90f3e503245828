const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes for a terminal: `512 B`, `80.0 KiB`, `12.5 MiB` (powers of 1024, like pg_size_pretty). */
export function formatBytes(bytes: number): string {
  if (Math.abs(bytes) < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = -1;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** A count with thousands separators: `1,234,567`. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
