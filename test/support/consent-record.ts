import { CONSENT_RECORD_FORM_1, ConsentRecord, ConsentRecordFacts } from '../../libs/domain/src';

const STATEMENT = 'I agree that Northfield may call me. “Quotes” & <tags>, café';

/** What every form of a consent record holds besides the person's keys, at a position, with a statement. */
export function consentRecordFacts(position: number, statement: string | null = STATEMENT): ConsentRecordFacts {
  return {
    position,
    lead_id: '0194a3b2-7c1d-7e2f-8a3b-4c5d6e7f8091',
    kind: 'result_submit',
    search_id: '0194a3b2-6b1d-7e2f-8a3b-4c5d6e7f8091',
    affiliate_id: '6a1f7e0e-3d1c-4b8e-9f21-3c4d5e6f7a8b',
    campaign_id: '7a0a82d7-3295-4655-8f2e-da5f2393642e',
    offer_id: '2b8f9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
    school_id: '3c9a0b1c-2d3e-4f5a-9b6c-7d8e9f0a1b2c',
    program_id: 'mba',
    tcpa_consent: true,
    statement,
    button_label: 'Request info',
    ip: '73.12.44.10',
    ip_source: 'consumer',
    consented_at: '2026-11-20T15:04:05.123Z',
    form_cert_url: null,
    universal_lead_cert: null,
  };
}

/** A consent record as the chain holds it (libs/domain ConsentRecord) in form 1 (plain hashes), at a position, with a statement. */
export function consentRecord(position: number, statement: string | null = STATEMENT): ConsentRecord {
  return { form: CONSENT_RECORD_FORM_1, ...consentRecordFacts(position, statement), email_sha256: null, phone_sha256: null };
}
