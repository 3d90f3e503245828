import type { SealedContact } from '@lr/domain';

/** What opens sealed contact documents (ContactSealer.tryOpenAll): null for one whose data key was destroyed. */
export interface ContactOpener {
  tryOpenAll<T>(sealed: readonly SealedContact[]): Promise<Array<T | null>>;
}
