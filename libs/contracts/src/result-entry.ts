/**
 * The contract's Result entry (affiliate-api.md, "Result entry"), exactly as an
 * affiliate sees it in `offers` of a search or poll answer. Optional keys are
 * absent, not null, when the contract says "absent" (payouts); nullable keys
 * are null when the catalog has no value.
 */
export interface ResultEntry {
  svc_result_id: string;
  campaign_id: string | null;
  offer: {
    id: string;
    name: string;
    offer_type: 'shared' | 'exclusive' | 'true_exclusive';
    is_exclusive: boolean | null;
    tcpa_text: string | null;
  };
  school: { name: string; logo_url: string | null };
  programs: ResultProgram[];
  /** The caller's best payout on this result; absent when none is configured. */
  payout?: number;
  form_fields: FormField[];
  expires_at: string | null;
}

export interface ResultProgram {
  value: string;
  label: string;
  /** The caller's payout for the program; absent when none is configured. */
  payout?: number;
}

export interface FormFieldOption {
  value: string;
  label: string;
}

export interface FormField {
  name: string;
  label: string | null;
  type: string;
  required: boolean;
  required_when?: { program_ids: string[] };
  options?: FormFieldOption[];
}
