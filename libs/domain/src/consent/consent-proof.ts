import { chainDigest, ChainBreak, ChainCursor, checkLinks, ConsentSeal, GENESIS, StoredLink } from './consent-ledger';
import { sha256Hex } from '../normalize/normalize';

/**
 * What a consent bundle proves offline (docs/consent-ledger.md, "Checking a
 * bundle"): each record file hashes to its record hash; the record's digest
 * is sha256(previous digest + record hash); the previous digest is the digest
 * of the record before it; and the chain's lines from the record up to the
 * seal of its day link, each digest from the one before and its record hash,
 * to the seal's head digest. Every step is one `sha256sum`.
 */

/** One line of a bundle's chain file: position, record hash, digest. */
export interface ProofLine {
  position: number;
  recordHash: string;
  digest: string;
}

/** An event's proof as a bundle states it. */
export interface EventProof {
  position: number;
  recordHash: string;
  prevDigest: string;
  digest: string;
  seal: ConsentSeal | null;
}

/**
 * Checks one event's proof against the record file's bytes (as UTF-8 text)
 * and the bundle's chain lines (by position). Answers the first problem, or null.
 */
export function checkEventProof(recordFileText: string, proof: EventProof, lines: ReadonlyMap<number, ProofLine>): string | null {
  const p = proof.position;
  if (sha256Hex(recordFileText) !== proof.recordHash) return `record ${p}: the record file does not hash to its record hash`;
  if (chainDigest(proof.prevDigest, proof.recordHash) !== proof.digest)
    return `record ${p}: its digest is not sha256(previous digest + record hash)`;
  const previous = p === 1 ? GENESIS : lines.get(p - 1)?.digest;
  if (previous === undefined) return `record ${p}: the chain lines lack position ${p - 1}, the record before it`;
  if (previous !== proof.prevDigest) return `record ${p}: its previous digest is not the digest of position ${p - 1}`;
  const own = lines.get(p);
  if (!own || own.recordHash !== proof.recordHash || own.digest !== proof.digest)
    return `record ${p}: the chain line at its position does not hold its record hash and digest`;
  const next = lines.get(p + 1);
  if (next && chainDigest(proof.digest, next.recordHash) !== next.digest)
    return `record ${p}: the next record's digest does not follow from its digest`;
  if (!proof.seal) return null;
  if (proof.seal.count < p) return `record ${p}: its seal (day ${proof.seal.day}) holds only ${proof.seal.count} records`;
  // Walk the lines from the record to the seal's head: each digest follows from the one before.
  const walk: StoredLink[] = [];
  for (let q = p + 1; q <= proof.seal.count; q += 1) {
    const line = lines.get(q);
    if (!line) return `record ${p}: the chain lines lack position ${q}, between the record and its seal`;
    const prev = q === p + 1 ? proof.digest : lines.get(q - 1)!.digest;
    walk.push({ position: q, leadId: '', recordHash: line.recordHash, prevDigest: prev, digest: line.digest, record: null });
  }
  for (const w of walk) {
    if (chainDigest(w.prevDigest, w.recordHash) !== w.digest)
      return `record ${p}: the chain line at position ${w.position} does not follow from the one before it`;
  }
  const head = proof.seal.count === p ? proof.digest : lines.get(proof.seal.count)!.digest;
  if (head !== proof.seal.headDigest) return `record ${p}: the chain does not reach the head digest sealed on ${proof.seal.day}`;
  return null;
}

/** Checks stored links, then that every seal whose head falls among them holds the digest at its count. */
export function checkLinksAndSeals(
  cursor: ChainCursor,
  links: readonly StoredLink[],
  sealsByCount: ReadonlyMap<number, ConsentSeal>,
): { cursor: ChainCursor } | { break: ChainBreak } {
  const checked = checkLinks(cursor, links);
  if ('break' in checked) return checked;
  for (const l of links) {
    const seal = sealsByCount.get(l.position);
    if (seal && seal.headDigest !== l.digest) {
      return {
        break: {
          position: l.position,
          leadId: l.leadId,
          problem: 'seal-mismatch',
          detail: `the seal of ${seal.day} names another head digest for this position: the record or the seal was changed after the day was sealed`,
        },
      };
    }
  }
  return checked;
}
