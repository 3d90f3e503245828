/** The contract's Result entry is the domain's vocabulary (libs/domain vocabulary/offers.ts), named here for the messages and answers that carry it. */
export type { FormField, FormFieldOption, ResultEntry, ResultProgram } from '@lr/domain';
