// The rules' steps (checkEligibility, qualifyOffer and the two phases in qualify.ts) stay inside libs/domain: callers judge offers with judgeOffers.
export type {
  EligibilityCheck,
  EligibilityFailure,
  EligibilityProgram,
  EligibilityRule,
  OfferQualification,
  ProgramCheck,
} from './eligibility';
export * from './qualify';
