// Generated from PostgreSQL's description of every declared statement (libs/persistence/src/queries/row-types/generate.ts):
// do not edit. After changing a statement or a migration, regenerate with `npm run db:row-types`.
/** The rows of each declared statement (`statement(name, text)`), by its name, as node-postgres returns them. */
export interface RowTypes {
  abandonedNotices: {
    id: string;
  };
  acknowledgeNotice: {
    acknowledged_at: Date | null;
  };
  activityByAffiliate: {
    id: string | null;
    name: string | null;
    searches: number | null;
    results_shown: number | null;
    submits: number | null;
    by_code: unknown;
    accepted: number | null;
    payouts: string | null;
  };
  activityByCampaign: {
    id: string | null;
    name: string | null;
    searches: number | null;
    results_shown: number | null;
    submits: number | null;
    by_code: unknown;
    accepted: number | null;
    payouts: string | null;
  };
  activityByOffer: {
    id: string | null;
    name: string | null;
    searches: number | null;
    results_shown: number | null;
    submits: number | null;
    by_code: unknown;
    accepted: number | null;
    payouts: string | null;
  };
  activityTotals: {
    id: string | null;
    name: string | null;
    searches: number | null;
    results_shown: number | null;
    submits: number | null;
    by_code: unknown;
    accepted: number | null;
    payouts: string | null;
  };
  affiliateIds: {
    id: string;
  };
  answerIdempotencyKey: Record<string, never>;
  campaignCapsOutside: {
    n: string | null;
  };
  campaignOffers: {
    offer_id: string;
    name: string;
    school_id: string;
    school_name: string;
    logo_url: string | null;
    source: 'own' | 'partner';
    offer_type: 'shared' | 'exclusive' | 'true_exclusive';
    status: 'active' | 'paused';
    priority: number;
    price: string | null;
    tcpa_text: string | null;
    result_ttl_seconds: number;
    duplicate_window_days: number;
    eligibility: unknown;
    delivery: unknown;
    programs: unknown;
    questions: unknown;
    caps: unknown;
    payout: string | null;
    program_payouts: unknown;
    external_id: string | null;
    partner_id: string | null;
    partner_name: string | null;
    adapter: string | null;
    base_url: string | null;
    timeout_ms: number | null;
    partner_settings: unknown;
  };
  catalogAffiliate: {
    id: string;
    name: string;
    status: 'active' | 'paused';
    dupe_check: boolean;
  };
  catalogApplyLock: {
    pg_advisory_xact_lock: string | null;
  };
  catalogCampaign: {
    id: string;
    affiliate_id: string;
    status: 'active' | 'paused';
  };
  catalogSchool: {
    id: string;
    name: string;
  };
  claimAttempt: {
    claimed: boolean | null;
    started_at: Date | null;
  };
  claimIdempotencyKey: {
    body_digest: string;
    lead_id: string;
    owner: string;
    lease_until: Date;
    answer_status: number | null;
    answer: unknown;
  };
  claimNotice: {
    state: string | null;
    id: string | null;
    lead_id: string | null;
    offer_id: string | null;
    buyer_kind: string | null;
    buyer_id: string | null;
    due_at: Date | null;
    attempts: number | null;
    received_at: Date | null;
    delivery: unknown;
    partner_adapter: string | null;
    partner_base_url: string | null;
    partner_settings: unknown;
  };
  claimedBefore: {
    claimed: boolean | null;
    started_at: Date;
  };
  consentChainLock: {
    locked: boolean | null;
  };
  consentDigestAt: {
    digest: string | null;
  };
  consentHead: {
    position: string | null;
    digest: string | null;
  };
  consentLastSeal: {
    day: string | null;
  };
  consentLeadKeys: {
    email_key: string | null;
    phone_key: string | null;
  };
  consentLink: Record<string, never>;
  consentPage: {
    seq: string;
    lead_id: string;
    position: string | null;
    record_hash: string | null;
    prev_digest: string | null;
    digest: string | null;
    school_id: string | null;
    record_form: number;
    form1_email_sha256: string | null;
    form1_phone_sha256: string | null;
    email_key: string | null;
    phone_key: string | null;
    present: boolean | null;
    kind: 'result_submit' | 'direct_post' | null;
    search_id: string | null;
    affiliate_id: string | null;
    campaign_id: string | null;
    offer_id: string | null;
    program_id: string | null;
    ip_source: 'consumer' | 'caller_server' | null;
    tcpa_consent: boolean | null;
    tcpa_text: string | null;
    button_label: string | null;
    ip: string | null;
    consented_at: Date | null;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
  };
  consentPersonEvents: {
    seq: string;
    lead_id: string;
    position: string | null;
    record_hash: string | null;
    prev_digest: string | null;
    digest: string | null;
    school_id: string | null;
    record_form: number;
    form1_email_sha256: string | null;
    form1_phone_sha256: string | null;
    email_key: string | null;
    phone_key: string | null;
    present: boolean | null;
    kind: 'result_submit' | 'direct_post' | null;
    search_id: string | null;
    affiliate_id: string | null;
    campaign_id: string | null;
    offer_id: string | null;
    program_id: string | null;
    ip_source: 'consumer' | 'caller_server' | null;
    tcpa_consent: boolean | null;
    tcpa_text: string | null;
    button_label: string | null;
    ip: string | null;
    consented_at: Date | null;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
    school_name: string | null;
    offer_name: string | null;
    campaign_name: string | null;
    affiliate_name: string | null;
    program_label: string | null;
    personal: unknown;
  };
  consentSeal: {
    day: string | null;
    count: string;
    head_digest: string;
    sealed_at: Date;
  };
  consentSeals: {
    day: string | null;
    count: string;
    head_digest: string;
    sealed_at: Date;
  };
  consentSegment: {
    position: string | null;
    record_hash: string | null;
    digest: string | null;
  };
  consentSummary: {
    head: string | null;
    unchained: string | null;
    oldest_unchained: Date | null;
  };
  consentUnchained: {
    seq: string;
    lead_id: string;
    position: string | null;
    record_hash: string | null;
    prev_digest: string | null;
    digest: string | null;
    school_id: string | null;
    record_form: number;
    form1_email_sha256: string | null;
    form1_phone_sha256: string | null;
    email_key: string | null;
    phone_key: string | null;
    present: boolean | null;
    kind: 'result_submit' | 'direct_post' | null;
    search_id: string | null;
    affiliate_id: string | null;
    campaign_id: string | null;
    offer_id: string | null;
    program_id: string | null;
    ip_source: 'consumer' | 'caller_server' | null;
    tcpa_consent: boolean | null;
    tcpa_text: string | null;
    button_label: string | null;
    ip: string | null;
    consented_at: Date | null;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
  };
  consentWindow: {
    first: string | null;
    last: string | null;
  };
  contactReveals: {
    id: string;
    lead_id: string;
    operator: string;
    reason: string | null;
    revealed_at: Date;
  };
  dataKeysByMaster: {
    key_id: string;
    keys: number | null;
  };
  dataKeysToRewrap: {
    id: string;
    key_id: string;
    wrapped: Buffer;
  };
  deletionRequest: {
    id: string;
    received_at: Date;
  };
  destroyDataKeys: {
    id: string;
  };
  explainCapUsage: {
    usage: unknown;
  };
  explainLastSalesBefore: {
    before: Date | null;
    offer_id: string;
    last_sold_at: Date | null;
  };
  explainOfferNames: {
    id: string;
    name: string;
  };
  explainResults: {
    id: string | null;
    rank: number | null;
    offer_id: string | null;
    school_id: string | null;
    payout: string | null;
    created_at: Date | null;
  };
  explainSales: {
    lead_id: string;
    offerId: string;
    schoolId: string;
    offerType: 'shared' | 'exclusive' | 'true_exclusive';
    status: 'reserved' | 'accepted' | 'released';
    created_at: Date;
    updated_at: Date;
  };
  explainSearch: {
    id: string;
    campaign_id: string;
    campaign_name: string;
    affiliate_id: string;
    is_test: boolean;
    lead: unknown;
    created_at: Date;
    closes_at: Date;
    person_keys: unknown;
    offer_decisions: unknown;
  };
  explainSubmits: {
    id: string;
    kind: 'result_submit' | 'direct_post';
    campaign_id: string;
    offer_id: string;
    offer_name: string;
    result_id: string | null;
    program_id: string | null;
    lead: unknown;
    is_test: boolean;
    status: 'accepted' | 'saved' | 'pending' | 'held' | 'rejected' | 'invalid' | 'failed';
    code: string | null;
    reason: string | null;
    field: string | null;
    decided_by: 'service' | 'buyer' | null;
    decided_at: Date | null;
    created_at: Date;
    result_expires_at: Date | null;
    attempt: unknown;
  };
  explainSuppressedSince: {
    at: Date | null;
  };
  findLead: {
    id: string;
    kind: 'result_submit' | 'direct_post';
    affiliate_id: string;
    campaign_id: string;
    offer_id: string;
    search_id: string | null;
    result_id: string | null;
    lead_group_id: string;
    is_test: boolean;
    status: 'accepted' | 'saved' | 'pending' | 'held' | 'rejected' | 'invalid' | 'failed';
    code: string | null;
    reason: string | null;
    payout: string | null;
    decided_by: 'service' | 'buyer' | null;
    decided_at: Date | null;
    field: string | null;
  };
  findLeadWithReturn: {
    id: string;
    kind: 'result_submit' | 'direct_post';
    affiliate_id: string;
    campaign_id: string;
    offer_id: string;
    search_id: string | null;
    result_id: string | null;
    lead_group_id: string;
    is_test: boolean;
    status: 'accepted' | 'saved' | 'pending' | 'held' | 'rejected' | 'invalid' | 'failed';
    code: string | null;
    reason: string | null;
    payout: string | null;
    decided_by: 'service' | 'buyer' | null;
    decided_at: Date | null;
    field: string | null;
    returned_at: Date | null;
    returned_reason: string | null;
  };
  handOverSuppressions: {
    lifted: number | null;
    kept: number | null;
  };
  historyBatch: {
    searches: number | null;
    calls: number | null;
    leads: number | null;
    sales: number | null;
    consents: number | null;
    keys: number | null;
    attempts: number | null;
    cap_rows: number | null;
    sample: string | null;
  };
  historyCopyTemplates: {
    '?column?': number | null;
  };
  historyDatabaseSize: {
    b: string | null;
  };
  historyGeneratedEntries: {
    n: string | null;
  };
  historyGeneratedKeys: {
    k: string | null;
  };
  historyGeneratedSearch: {
    lead: unknown;
    person_keys: unknown;
    day_ok: boolean | null;
  };
  historyModelSearch: {
    id: string;
    part_day: string | null;
    lead: unknown;
    offer_decisions: string | null;
    result_partner: string | null;
    result_order: string[] | null;
    result_templates: string[] | null;
    expires_ms: number[] | null;
  };
  historySubmitChoices: {
    pos: number | null;
    offer_id: string;
    school_id: string;
    offer_type: 'shared' | 'exclusive' | 'true_exclusive';
    price: string | null;
    body: string;
    tcpa_text: string | null;
  };
  insertContactReveal: {
    id: string;
    revealed_at: Date;
  };
  insertDataKeys: Record<string, never>;
  insertKey: Record<string, never>;
  keepSubmitted: {
    searches: number | null;
    calls: number | null;
    templates: number | null;
  };
  keyByHash: {
    id: string;
    affiliate_id: string | null;
    school_id: string | null;
    affiliate_status: 'active' | 'paused' | null;
    expires_at: Date | null;
    revoked_at: Date | null;
    limits: unknown;
  };
  keylessSealedSearches: {
    id: string;
    contact: unknown;
  };
  keysOfOwner: {
    id: string;
    affiliate_id: string | null;
    school_id: string | null;
    key_prefix: string;
    created_at: Date;
    expires_at: Date | null;
    revoked_at: Date | null;
    limits: unknown;
  };
  knownOffers: {
    id: string;
    source: 'own' | 'partner';
    partner_id: string | null;
    external_id: string | null;
    programs: string[] | null;
  };
  lastSalesOfOffers: {
    offer_id: string;
    last_sold_at: Date | null;
    window_days: number;
  };
  lastSalesOnCampaigns: {
    offer_id: string;
    last_sold_at: Date | null;
    window_days: number;
  };
  lateNotices: {
    id: string;
  };
  leadCandidates: {
    id: string | null;
  };
  leadGroup: {
    search_id: string | null;
    lead_group_id: string | null;
  };
  leadRow: {
    id: string;
    isTest: boolean;
    lead: unknown;
    tracking: unknown;
    consumerIp: string;
    ipSource: 'consumer' | 'caller_server';
    answers: unknown;
    consent: unknown;
    attempts: unknown;
    receipt: unknown;
    returnNote: string | null;
  };
  leadsByDedupeKeys: {
    lead_id: string;
  };
  legacyMessagesNewest: {
    newest: Date | null;
  };
  legacyNewest: {
    newest: Date | null;
  };
  liftSuppressions: {
    key_type: 'email' | 'phone';
  };
  lockSearch: {
    '?column?': number | null;
  };
  lockedFacts: {
    live_sales: unknown;
    cap_usage: unknown;
    last_sales: unknown;
    suppressed: boolean | null;
    own: unknown;
    group_lead: unknown;
    group_contact: unknown;
    submitted: boolean | null;
  };
  markNoticesQueued: Record<string, never>;
  markOptOutsReversed: {
    id: string;
  };
  markProcessed: {
    claimed: boolean | null;
  };
  mergeAnswer: {
    id: string;
    state_version: number;
    affiliate_id: string;
    campaign_id: string;
    is_test: boolean;
    created_at: Date;
    closes_at: Date;
    processing_done_at: Date | null;
    accepted_count: number;
    true_exclusive_accepted: boolean;
    missing: number | null;
  };
  mergeContext: {
    campaign_id: string;
    is_test: boolean;
    closes_at: Date;
    lead: unknown;
    state_version: number;
    result_order: unknown;
    has_person_keys: boolean | null;
    calls: unknown;
    pending: boolean | null;
    live_sales: unknown;
    cap_usage: unknown;
    last_sales: unknown;
    suppressed: boolean | null;
    shown: unknown;
  };
  noticeCounts: {
    open: number | null;
    overdue: number | null;
    recorded_last_day: unknown;
  };
  noticeFailed: Record<string, never>;
  offerForDirectPost: {
    id: string;
    source: 'own' | 'partner';
    status: 'active' | 'paused';
    on_campaign: boolean | null;
  };
  offerSoldToAffiliate: {
    '?column?': number | null;
  };
  offersById: {
    offer_id: string;
    name: string;
    school_id: string;
    school_name: string;
    logo_url: string | null;
    source: 'own' | 'partner';
    offer_type: 'shared' | 'exclusive' | 'true_exclusive';
    status: 'active' | 'paused';
    priority: number;
    price: string | null;
    tcpa_text: string | null;
    result_ttl_seconds: number;
    duplicate_window_days: number;
    eligibility: unknown;
    delivery: unknown;
    programs: unknown;
    questions: unknown;
    caps: unknown;
    payout: string | null;
    program_payouts: unknown;
    external_id: string | null;
    partner_id: string | null;
    partner_name: string | null;
    adapter: string | null;
    base_url: string | null;
    timeout_ms: number | null;
    partner_settings: unknown;
  };
  openNotices: {
    id: string;
    lead_id: string;
    offer_id: string;
    buyer_kind: 'school' | 'partner';
    buyer_id: string;
    buyer_name: string | null;
    received_at: Date;
    due_at: Date;
    queued_at: Date | null;
    attempts: number;
    last_error: string | null;
    acknowledged_at: Date | null;
    opt_out_id: string;
    source: 'affiliate' | 'operator' | 'deletion';
    affiliate_id: string | null;
    api_key_id: string | null;
  };
  optOutLocks: {
    count: string | null;
  };
  optOutReversalLocks: {
    count: string | null;
  };
  optOutsByIds: {
    id: string;
    received_at: Date;
    recorded_at: Date;
    source: 'affiliate' | 'operator' | 'deletion';
    affiliate_id: string | null;
    api_key_id: string | null;
    reference: string | null;
    email: boolean | null;
    phone: boolean | null;
    reversed_at: Date | null;
    reversed_by: string | null;
    reversal_reason: string | null;
    keys_held: number | null;
    notices_sent: number | null;
    notices_open: number | null;
    notices_cancelled: number | null;
  };
  optOutsByKey: {
    id: string;
    received_at: Date;
    recorded_at: Date;
    source: 'affiliate' | 'operator' | 'deletion';
    affiliate_id: string | null;
    api_key_id: string | null;
    reference: string | null;
    email: boolean | null;
    phone: boolean | null;
    reversed_at: Date | null;
    reversed_by: string | null;
    reversal_reason: string | null;
    keys_held: number | null;
    notices_sent: number | null;
    notices_open: number | null;
    notices_cancelled: number | null;
  };
  partitionList: {
    table: string;
    name: string;
    bound: string | null;
    rows: string | null;
    bytes: string | null;
  };
  partitionsLock: {
    pg_advisory_xact_lock: string | null;
  };
  partnerIds: {
    id: string;
  };
  pendingLeads: {
    count: number | null;
    oldest_seconds: number | null;
  };
  pendingPartnerCalls: {
    partner_id: string;
    offer_ids: string[];
  };
  processed_messagesDayRows: {
    n: string | null;
  };
  pruneIdempotencyKeys: {
    '?column?': number | null;
  };
  readDataKeys: {
    id: string;
    key_id: string;
    wrapped: Buffer;
  };
  recordOptOut: {
    recorded: number | null;
    suppressed: number | null;
    notices: number | null;
  };
  releaseIdempotencyKey: Record<string, never>;
  resendAttempt: {
    claimed: boolean | null;
    started_at: Date | null;
  };
  reservedLead: {
    lead: unknown;
    contact: unknown;
    tracking: unknown;
    consumer_ip: string;
    program_id: string | null;
    answers: unknown;
    created_at: Date;
    payout: string | null;
    partner_data: unknown;
    shown_statement: string | null;
    consent: unknown;
  };
  resultRef: {
    id: string | null;
    search_id: string;
    campaign_id: string;
    affiliate_id: string;
    offer_id: string;
  };
  result_templatesDayRows: {
    n: string | null;
  };
  returnFacts: {
    sale: unknown;
    returned: unknown;
    now: Date | null;
  };
  revokeKey: {
    id: string | null;
    revoked_at: Date | null;
    newly: boolean | null;
  };
  rewrapDataKeys: Record<string, never>;
  saleFacts: {
    live_sales: unknown;
    cap_usage: unknown;
    last_sales: unknown;
    suppressed: boolean | null;
  };
  saleLocks: {
    count: string | null;
  };
  schoolIds: {
    id: string;
  };
  sealedLeadContacts: {
    id: string;
    contact: unknown;
  };
  sealedSearchContact: {
    contact: unknown;
  };
  sealedSearchContacts: {
    id: string;
    contact: unknown;
  };
  searchAnswer: {
    id: string;
    state_version: number;
    affiliate_id: string;
    campaign_id: string;
    is_test: boolean;
    created_at: Date;
    closes_at: Date;
    processing_done_at: Date | null;
    accepted_count: number;
    true_exclusive_accepted: boolean;
    result_order: string[];
    entries: string[] | null;
  };
  searchCampaign: {
    campaign_id: string;
  };
  searchCandidates: {
    id: string;
    by_keys: boolean | null;
    email: string | null;
    phone: string | null;
  };
  searchCount: {
    n: string | null;
  };
  searchDataKeysOfDays: {
    id: string;
    key: string | null;
  };
  searchExists: {
    '?column?': number | null;
  };
  searchRow: {
    id: string;
    isTest: boolean;
    lead: unknown;
    tracking: unknown;
    consumerIp: string;
    ipSource: 'consumer' | 'caller_server';
    offerDecisions: unknown;
    resultPartner: unknown;
    resultExpires: Date[];
    partnerCalls: unknown;
  };
  search_partner_callsDayRows: {
    n: string | null;
  };
  searchesDayRows: {
    n: string | null;
  };
  settleLead: {
    lead: unknown;
    search: unknown;
  };
  settleReversedNotices: {
    handed_over: number | null;
    cancelled: number | null;
    under_way: number | null;
    already_sent: number | null;
  };
  simulationCampaignNames: {
    id: string;
    name: string;
  };
  simulationCampaignsWithOffers: {
    campaign_id: string;
  };
  simulationCount: {
    n: string | null;
  };
  simulationPage: {
    id: string;
    campaign_id: string;
    created_at: Date;
    lead: unknown;
    kept: unknown;
  };
  simulationPartners: {
    id: string;
    name: string;
    adapter: string;
    base_url: string;
    timeout_ms: number;
    settings: unknown;
  };
  simulationSchools: {
    id: string;
    name: string;
    logo_url: string | null;
  };
  simulationStartOfLast: {
    id: string;
    created_at: Date;
  };
  statementAcceptedOfAffiliate: {
    id: string;
    offer_id: string;
    campaign_id: string;
    created_at: Date;
    decided_at: Date | null;
    amount: string | null;
  };
  statementAcceptedOfSchool: {
    id: string;
    offer_id: string;
    campaign_id: string;
    created_at: Date;
    decided_at: Date | null;
    amount: string | null;
  };
  statementReturnsOfAffiliate: {
    lead_id: string;
    offer_id: string;
    campaign_id: string;
    created_at: Date;
    returned_at: Date;
    reason: string;
    amount: string | null;
  };
  statementReturnsOfSchool: {
    lead_id: string;
    offer_id: string;
    campaign_id: string;
    created_at: Date;
    returned_at: Date;
    reason: string;
    amount: string | null;
  };
  storeDecided: {
    lead: unknown;
  };
  storeSearch: {
    stored: number | null;
    missing: number | null;
  };
  storeTemplates: Record<string, never>;
  storyAttempts: {
    lead_id: string;
    attempt: number;
    started_at: Date;
    finished_at: Date | null;
    outcome: string | null;
    http_status: number | null;
    latency_ms: number | null;
    detail: string | null;
  };
  storyCaps: {
    offer_id: string;
    campaign_id: string | null;
    period: 'hour' | 'day' | 'week' | 'month' | 'total';
    limit: number;
  };
  storyConsents: {
    lead_id: string;
    tcpa_consent: boolean;
    tcpa_text: string | null;
    button_label: string | null;
    ip: string;
    consented_at: Date;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
  };
  storyDedupeKeys: {
    lead_id: string;
    key_types: string[] | null;
  };
  storyOfferChecks: {
    offer_id: string | null;
    offer_name: string | null;
    decision: unknown;
  };
  storyPartnerCalls: {
    partner_id: string;
    partner_name: string;
    status: 'pending' | 'answered' | 'timeout' | 'error' | 'circuit_open' | 'expired';
    offer_ids: string[];
    requested_at: Date;
    answered_at: Date | null;
    latency_ms: number | null;
    result_count: number | null;
    detail: string | null;
  };
  storyResults: {
    id: string | null;
    rank: number | null;
    offer_id: string | null;
    offer_name: string;
    source: 'own' | 'partner';
    offer_type: 'shared' | 'exclusive' | 'true_exclusive';
    school_name: string;
    partner_name: string | null;
    entry: unknown;
    created_at: Date | null;
    expires_at: Date | null;
  };
  storyReturns: {
    lead_id: string;
    returned_at: Date;
    reason: string;
    note: string | null;
    source: 'api' | 'import';
    payout_reversal: string | null;
    price_reversal: string | null;
    cap_slots: unknown;
  };
  storySales: {
    id: string;
    lead_id: string;
    offer_id: string;
    campaign_id: string;
    status: 'reserved' | 'accepted' | 'released';
    offer_type: 'shared' | 'exclusive' | 'true_exclusive';
    payout: string | null;
    price: string | null;
    created_at: Date;
    updated_at: Date;
    slots: unknown;
  };
  storySearch: {
    id: string;
    affiliate_id: string;
    affiliate_name: string;
    campaign_id: string;
    campaign_name: string;
    api_key_id: string;
    key_prefix: string | null;
    is_test: boolean;
    lead: unknown;
    sealed: boolean | null;
    tracking: unknown;
    consumer_ip: string;
    ip_source: 'consumer' | 'caller_server';
    tcpa_consent: boolean | null;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
    created_at: Date;
    closes_at: Date;
    processing_done_at: Date | null;
    submitted_at: Date | null;
    accepted_count: number;
    true_exclusive_accepted: boolean;
  };
  storySubmits: {
    id: string;
    kind: 'result_submit' | 'direct_post';
    origin_lead_id: string | null;
    result_id: string | null;
    offer_id: string;
    offer_name: string;
    offer_source: 'own' | 'partner';
    school_name: string;
    affiliate_id: string;
    affiliate_name: string;
    campaign_id: string;
    campaign_name: string;
    api_key_id: string;
    program_id: string | null;
    answers: unknown;
    lead: unknown;
    sealed: boolean | null;
    tracking: unknown;
    consumer_ip: string;
    ip_source: 'consumer' | 'caller_server';
    is_test: boolean;
    status: 'accepted' | 'saved' | 'pending' | 'held' | 'rejected' | 'invalid' | 'failed';
    code: string | null;
    reason: string | null;
    field: string | null;
    decided_by: 'service' | 'buyer' | null;
    decided_at: Date | null;
    payout: string | null;
    created_at: Date;
  };
  submitContext: {
    stored: unknown;
    picked: unknown;
    origin: unknown;
  };
  submittedCount: {
    n: string | null;
  };
  tableSizes: {
    table: string | null;
    partitioned: boolean | null;
    partitions: number | null;
    rows: string | null;
    bytes: string | null;
  };
  unledgeredLeads: {
    id: string;
    email: string | null;
    phone: string | null;
  };
  unledgeredSealedLeads: {
    id: string;
    contact: unknown;
  };
  unqueuedNotices: {
    id: string;
  };
  unresolvedDeliveries: {
    lead_id: string;
    affiliate_id: string;
    campaign_id: string;
    offer_id: string;
    offer_name: string;
    buyer: string | null;
    buyer_kind: string | null;
    started_at: Date;
    decided_at: Date | null;
    code: string | null;
    is_test: boolean;
  };
  writeLead: {
    consent: number | null;
    attempts: number | null;
    receipts: number | null;
    returns: number | null;
  };
  writeReturn: {
    returned_at: Date;
    reason: string;
    offer_id: string;
    slots_freed: number | null;
  };
  writeSale: {
    sold: boolean | null;
  };
  writeSearch: {
    searches: number | null;
    calls: number | null;
  };
}
