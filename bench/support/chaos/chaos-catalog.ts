import { randomUUID } from 'node:crypto';

type OfferType = 'shared' | 'exclusive' | 'true_exclusive';
interface CapSpec {
  period: 'hour' | 'day' | 'total';
  limit: number;
}

/** An own offer of the fault run: its sale rules, caps, and how its (sandbox) school answers. */
interface OwnOfferSpec {
  key: string;
  type: OfferType;
  caps: CapSpec[];
  /** Caps on the campaign's use of the offer (a second cap_usage row per sale). */
  campaignCaps?: CapSpec[];
  /** The sandbox school's query: outcome and delay. */
  school: string;
  timeoutMs: number;
}

/**
 * Small caps (5 to 20 a day) so they fill while the faults hit, every sale
 * type, one school slower than the gateway's answer timeout (PENDING answers),
 * one that refuses and one that fails (sales released, slots given back), and
 * two uncapped ones so delivery has work until the end.
 */
const OWN_OFFERS: readonly OwnOfferSpec[] = [
  { key: 'cap5', type: 'shared', caps: [{ period: 'day', limit: 5 }], school: 'outcome=accept&delay_ms=20', timeoutMs: 4000 },
  {
    key: 'cap12',
    type: 'shared',
    caps: [{ period: 'day', limit: 12 }],
    campaignCaps: [{ period: 'hour', limit: 8 }],
    school: 'outcome=accept&delay_ms=80',
    timeoutMs: 4000,
  },
  { key: 'cap20', type: 'shared', caps: [{ period: 'day', limit: 20 }], school: 'outcome=accept&delay_ms=150', timeoutMs: 4000 },
  { key: 'excl', type: 'exclusive', caps: [{ period: 'day', limit: 15 }], school: 'outcome=accept&delay_ms=50', timeoutMs: 4000 },
  { key: 'texcl', type: 'true_exclusive', caps: [{ period: 'day', limit: 10 }], school: 'outcome=accept&delay_ms=50', timeoutMs: 4000 },
  { key: 'picky', type: 'shared', caps: [{ period: 'day', limit: 10 }], school: 'outcome=reject&delay_ms=100', timeoutMs: 4000 },
  { key: 'broken', type: 'shared', caps: [{ period: 'total', limit: 8 }], school: 'outcome=error&delay_ms=50', timeoutMs: 4000 },
  { key: 'slow', type: 'shared', caps: [], school: 'outcome=accept&delay_ms=2500', timeoutMs: 6000 },
  { key: 'steady', type: 'shared', caps: [], school: 'outcome=accept&delay_ms=300', timeoutMs: 4000 },
];

/** Partner networks on the sandbox, and their offers (partner results need program and answers at submit). */
const PARTNERS = [
  {
    key: 'pa',
    query: 'delay_ms=300&match=all&outcome=accept',
    offers: [
      { key: 'pa1', caps: [{ period: 'day', limit: 10 }] as CapSpec[] },
      { key: 'pa2', caps: [] as CapSpec[] },
    ],
  },
  { key: 'pb', query: 'delay_ms=900&match=all&outcome=accept', offers: [{ key: 'pb1', caps: [] as CapSpec[] }] },
] as const;

/** Sandbox names (schools and partners) of one run: a run's receipts never mix with another's. */
export interface ChaosNames {
  schools: string[];
  partners: string[];
  /** The schools and partners that accept every lead they are sent: a lead they received that is not ACCEPTED is delivered but not accepted. */
  accepting: { schools: string[]; partners: string[] };
}

export interface ChaosCatalog {
  catalog: Record<string, unknown>;
  affiliateId: string;
  campaignId: string;
  /** Own offers that take direct posts. */
  ownOfferIds: string[];
  /** The own offer whose school answers after the gateway stopped waiting (PENDING answers). */
  slowOfferId: string;
  partnerOfferIds: string[];
  names: ChaosNames;
}

/** The fault run's catalog, with fresh ids and sandbox names carrying `run`. */
export function chaosCatalog(sandboxUrl: string, run: string): ChaosCatalog {
  const affiliateId = randomUUID();
  const campaignId = randomUUID();
  const schools: Array<{ id: string; name: string }> = [];
  const school = (key: string) => {
    const s = { id: randomUUID(), name: `Chaos ${run} ${key} College` };
    schools.push(s);
    return s.id;
  };
  const schoolName = (key: string) => `chaos-${run}-${key}`;
  const partnerName = (key: string) => `chaos-${run}-${key}`;

  const own = OWN_OFFERS.map((spec) => {
    const id = randomUUID();
    return {
      id,
      name: `Chaos ${spec.key}`,
      school_id: school(spec.key),
      source: 'own',
      offer_type: spec.type,
      status: 'active',
      priority: 10,
      price: 30,
      tcpa_text: `By clicking Request Info I agree that Chaos ${spec.key} College may contact me.`,
      result_ttl_seconds: 900,
      caps: spec.caps,
      delivery: {
        adapter: 'sandbox',
        url: `${sandboxUrl}/schools/${schoolName(spec.key)}/leads?${spec.school}`,
        timeout_ms: spec.timeoutMs,
      },
    };
  });
  const partners = PARTNERS.map((p) => ({
    id: randomUUID(),
    name: `Chaos partner ${run} ${p.key}`,
    adapter: 'sandbox',
    base_url: `${sandboxUrl}/partners/${partnerName(p.key)}?${p.query}`,
    timeout_ms: 3000,
  }));
  const partnerOffers = PARTNERS.flatMap((p, i) =>
    p.offers.map((o) => {
      const id = randomUUID();
      return {
        id,
        name: `Chaos partner offer ${o.key}`,
        school_id: school(o.key),
        source: 'partner',
        partner_id: partners[i].id,
        external_id: `chaos-${o.key}`,
        offer_type: 'shared',
        status: 'active',
        priority: 10,
        result_ttl_seconds: 900,
        caps: o.caps,
      };
    }),
  );
  const campaignCaps = new Map(OWN_OFFERS.map((spec, i) => [own[i].id, spec.campaignCaps ?? []]));
  const catalog = {
    affiliates: [{ id: affiliateId, name: `Chaos affiliate ${run}`, status: 'active', dupe_check: false }],
    schools,
    partners,
    offers: [...own, ...partnerOffers],
    campaigns: [
      {
        id: campaignId,
        affiliate_id: affiliateId,
        name: `Chaos campaign ${run}`,
        status: 'active',
        offers: [...own, ...partnerOffers].map((o) => ({ offer_id: o.id, payout: 10, caps: campaignCaps.get(o.id) ?? [] })),
      },
    ],
  };
  return {
    catalog,
    affiliateId,
    campaignId,
    ownOfferIds: own.map((o) => o.id),
    slowOfferId: own[OWN_OFFERS.findIndex((spec) => spec.key === 'slow')].id,
    partnerOfferIds: partnerOffers.map((o) => o.id),
    names: {
      schools: OWN_OFFERS.map((s) => schoolName(s.key)),
      partners: PARTNERS.map((p) => partnerName(p.key)),
      accepting: {
        schools: OWN_OFFERS.filter((s) => s.school.includes('outcome=accept')).map((s) => schoolName(s.key)),
        partners: PARTNERS.filter((p) => p.query.includes('outcome=accept')).map((p) => partnerName(p.key)),
      },
    },
  };
}
