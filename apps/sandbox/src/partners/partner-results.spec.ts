import { matchedOffers, partnerResult } from './partner-results';

describe('partner results', () => {
  it('depend on external_id only, except partner_result_id which is per partner and search', () => {
    const a = partnerResult('alpha', 's1', 'westlake-001');
    const b = partnerResult('beta', 's2', 'westlake-001');
    const { partner_result_id: idA, ...restA } = a;
    const { partner_result_id: idB, ...restB } = b;
    expect(restA).toEqual(restB);
    expect(idA).not.toBe(idB);
    expect(partnerResult('alpha', 's1', 'westlake-001')).toEqual(a);
  });

  it('name the school after the id and state it in the consent text', () => {
    const r = partnerResult('alpha', 's1', 'pine-valley-004');
    expect(r.school.name).toMatch(/^Pine Valley (College|University|Institute of Technology|State University|Community College)$/);
    expect(r.tcpa_text).toContain(r.school.name);
    expect(partnerResult('alpha', 's1', 'harbor-college-7').school.name).toBe('Harbor College');
    expect(partnerResult('alpha', 's1', '0042').school.name).toMatch(/^Sandbox School 0042 /);
  });

  it('ask a program-specific question only about an offered program', () => {
    for (let i = 0; i < 50; i++) {
      const r = partnerResult('alpha', 's1', `offer-${i}`);
      const values = r.programs.map((p) => p.value);
      expect(new Set(values).size).toBe(values.length);
      for (const f of r.form_fields) if (f.required_when) expect(values).toEqual(expect.arrayContaining(f.required_when.program_ids));
    }
  });

  it('match all, none, or every other offer', () => {
    expect(matchedOffers([1, 2, 3, 4, 5], 'all')).toEqual([1, 2, 3, 4, 5]);
    expect(matchedOffers([1, 2, 3, 4, 5], 'none')).toEqual([]);
    expect(matchedOffers([1, 2, 3, 4, 5], 'some')).toEqual([1, 3, 5]);
  });
});
