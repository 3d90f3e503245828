import type { Lead } from '../lead-input';
import { DedupeKey, leadDedupeKeys } from '../normalize/dedupe-keys';
import type { PersonKeySecret } from '../normalize/person-key';
import type { SearchMode } from '../ranking/ranking';

/**
 * Test mode (affiliate-api.md, "Test mode"): "the live pipeline runs with the
 * live key and campaign, except that a test search lists every ranked offer (a
 * school can appear more than once), buyers are not contacted, and the
 * person-level duplicate check does not run." A test submit that passes the
 * checks is held (`TEST_LEAD_HELD`): "never delivered and never counted (no
 * sale, cap use or payout); stays a test lead on later calls". Every branch on
 * test mode asks this module.
 */
export interface TestMode {
  readonly isTest: boolean;
  /** How a search's results are merged: a live search shows each school once, a test search every ranked offer. */
  readonly ranking: SearchMode;
  /** The person keys the duplicate check looks up: none in test mode (the check does not run). */
  personKeys(secret: PersonKeySecret, lead: Lead): DedupeKey[];
  /** Whether the person-level duplicate rule applies. */
  readonly checksPerson: boolean;
  /** A submit that passes every check is held, not sold: no sale, no cap use, no dedupe key, no buyer, payout 0. */
  readonly holdsInsteadOfSelling: boolean;
  /** Whether its consent events are chained in the consent ledger: a test lead is never delivered, so no buyer relies on its consent. */
  readonly chainsConsent: boolean;
}

const LIVE: TestMode = {
  isTest: false,
  ranking: 'live',
  personKeys: (secret, lead) => leadDedupeKeys(secret, lead),
  checksPerson: true,
  holdsInsteadOfSelling: false,
  chainsConsent: true,
};

const TEST: TestMode = {
  isTest: true,
  ranking: 'test',
  personKeys: () => [],
  checksPerson: false,
  holdsInsteadOfSelling: true,
  chainsConsent: false,
};

/** The mode of a search or submit: a test lead "stays a test lead on later calls", so any test flag along the way makes it one. */
export function testMode(...flags: ReadonlyArray<boolean | null | undefined>): TestMode {
  return flags.some((f) => f === true) ? TEST : LIVE;
}
