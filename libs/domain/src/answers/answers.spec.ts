import { SUBMIT } from '../decisions/decision-catalog';
import { checkAnswers, ShownOffer } from './answers';

const shown: ShownOffer = {
  programs: [
    { value: 'bsn', label: 'BS in Nursing' },
    { value: 'rn-bsn', label: 'RN to BSN' },
  ],
  formFields: [
    {
      name: 'hs_grad_year',
      label: 'HS grad year',
      type: 'select',
      required: true,
      options: [
        { value: '2018', label: '2018' },
        { value: '2019', label: '2019' },
      ],
    },
    {
      name: 'rn_license',
      label: 'Do you hold an RN license?',
      type: 'select',
      required: false,
      required_when: { program_ids: ['rn-bsn'] },
      options: [
        { value: 'yes', label: 'Yes' },
        { value: 'no', label: 'No' },
      ],
    },
    { name: 'credits', label: null, type: 'number', required: false },
  ],
};

describe('checkAnswers', () => {
  it('accepts the required answers and keeps only the questions', () => {
    expect(checkAnswers(shown, 'bsn', { hs_grad_year: '2018', other: 'x' })).toEqual({
      ok: true,
      programId: 'bsn',
      answers: { hs_grad_year: '2018' },
    });
  });
  it('names a missing required answer by its label', () => {
    const r = checkAnswers(shown, 'bsn', {});
    expect(r).toEqual({ ok: false, refusal: SUBMIT.answerMissing('HS grad year', 'hs_grad_year') });
    expect(r).toMatchObject({
      ok: false,
      refusal: { status: 'invalid', code: 'REQUIRED_FIELD_MISSING', reason: 'Missing HS grad year', field: 'hs_grad_year' },
    });
  });
  it('asks required_when questions only for their programs', () => {
    expect(checkAnswers(shown, 'bsn', { hs_grad_year: '2019' }).ok).toBe(true);
    const r = checkAnswers(shown, 'rn-bsn', { hs_grad_year: '2019' });
    expect(r).toMatchObject({ ok: false, refusal: { code: 'REQUIRED_FIELD_MISSING', field: 'rn_license' } });
    expect(checkAnswers(shown, 'rn-bsn', { hs_grad_year: '2019', rn_license: 'yes' }).ok).toBe(true);
  });
  it('refuses a select value outside the options, and a bad number', () => {
    expect(checkAnswers(shown, 'bsn', { hs_grad_year: '1999' })).toMatchObject({
      ok: false,
      refusal: { status: 'invalid', code: 'INVALID_FIELD', field: 'hs_grad_year' },
    });
    expect(checkAnswers(shown, 'bsn', { hs_grad_year: '2018', credits: 'ten' })).toMatchObject({
      ok: false,
      refusal: { code: 'INVALID_FIELD', field: 'credits' },
    });
    expect(checkAnswers(shown, 'bsn', { hs_grad_year: { x: 1 } })).toMatchObject({
      ok: false,
      refusal: { code: 'INVALID_FIELD', field: 'hs_grad_year' },
    });
  });
  it('takes a number answer as text', () => {
    expect(checkAnswers(shown, 'bsn', { hs_grad_year: 2018, credits: 12 })).toEqual({
      ok: true,
      programId: 'bsn',
      answers: { hs_grad_year: '2018', credits: '12' },
    });
  });
  it('refuses an unknown program, requires one among several, implies the only one', () => {
    expect(checkAnswers(shown, 'mba', { hs_grad_year: '2018' })).toMatchObject({
      ok: false,
      refusal: { code: 'INVALID_FIELD', field: 'program_id' },
    });
    expect(checkAnswers(shown, null, { hs_grad_year: '2018' })).toMatchObject({
      ok: false,
      refusal: { code: 'REQUIRED_FIELD_MISSING', field: 'program_id' },
    });
    const one = { ...shown, programs: [shown.programs[0]] };
    expect(checkAnswers(one, null, { hs_grad_year: '2018' })).toMatchObject({ ok: true, programId: 'bsn' });
    expect(checkAnswers({ programs: [], formFields: [] }, null, {})).toEqual({ ok: true, programId: null, answers: {} });
  });
});

describe('checkAnswers with questions named like Object.prototype members', () => {
  const odd: ShownOffer = {
    programs: [],
    formFields: [
      { name: 'constructor', label: 'Builder', type: 'text', required: true },
      { name: 'toString', label: null, type: 'text', required: false },
    ],
  };
  it('an unanswered one is missing (was INVALID_FIELD: the prototype answered it)', () => {
    expect(checkAnswers(odd, null, {})).toMatchObject({ ok: false, refusal: { code: 'REQUIRED_FIELD_MISSING', field: 'constructor' } });
    expect(checkAnswers(odd, null, { constructor: 'yes' })).toEqual({ ok: true, programId: null, answers: { constructor: 'yes' } });
  });
});
