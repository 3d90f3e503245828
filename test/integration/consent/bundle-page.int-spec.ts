import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { renderBundleHtml } from '../../../apps/ops/src/consent/bundle-html';
import { Bundle, BUNDLE_FORMAT, CANONICAL_FORM_TEXT, PERSON_KEYS_TEXT } from '../../../apps/ops/src/consent/bundle-model';
import { CONSENT_RECORD_FORM, type ConsentRecord } from '../../../libs/domain/src';
import { consentRecordFacts } from '../../support/consent-record';

/**
 * A dispute bundle's page as a person sees it: rendered by headless Chromium
 * (Debian's package; .ci/run installs it). What this proves: the statement
 * is in the page as text where the page puts it (the DOM), and it is drawn
 * there, visibly: the same page with only the statement's glyphs made
 * transparent (the same box, the same layout) looks different in that box.
 * It does not read the pixels back as text (no OCR).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const STATEMENT =
  'By clicking "Request info" I agree that Northfield University may call and text me at the number I gave, also by autodialer. Consent is not required to enroll.';

function bundleWith(statement: string): Bundle {
  const record: ConsentRecord = {
    form: CONSENT_RECORD_FORM,
    ...consentRecordFacts(7, statement),
    form_cert_url: 'https://cert.example/abc123',
    email_key: 'f'.repeat(64),
    phone_key: 'e'.repeat(64),
  };
  return {
    format: BUNDLE_FORMAT,
    exported_at: '2026-11-27T09:00:00.000Z',
    asked: { by: 'phone', value: '5125550147' },
    person: { email_key: null, phone_key: 'e'.repeat(64) },
    person_keys: PERSON_KEYS_TEXT,
    canonical_form: CANONICAL_FORM_TEXT,
    chain_file: 'chain.tsv',
    events: [
      {
        position: 7,
        lead_id: record.lead_id,
        record_file: 'records/7.json',
        record,
        record_hash: 'a'.repeat(64),
        prev_digest: 'b'.repeat(64),
        digest: 'c'.repeat(64),
        previous: { position: 6, digest: 'b'.repeat(64) },
        next: null,
        seal: { day: '2026-11-20', count: 9, head_digest: 'd'.repeat(64), sealed_at: '2026-11-21T00:00:01.000Z' },
        context: {
          school_name: 'Northfield University',
          offer_name: 'Online MBA',
          campaign_name: 'Alpha main',
          affiliate_name: 'Alpha',
          program_label: 'MBA',
          contact: null,
        },
      },
    ],
    unchained_lead_ids: [],
  };
}

describe('the bundle page in headless Chromium', () => {
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'lr-consent-page-'));

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page opened from a file, as the person given the bundle opens it; the statement's box and its screenshot. */
  async function render(name: string, opts: { hideStatementGlyphs?: boolean } = {}) {
    const file = join(dir, 'index.html');
    writeFileSync(file, renderBundleHtml(bundleWith(STATEMENT)));
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    try {
      await page.goto(`file://${file}`);
      if (opts.hideStatementGlyphs) await page.addStyleTag({ content: '[data-field="statement"] { color: transparent !important; }' });
      const box = page.locator('#position-7 [data-field="statement"]');
      const text = await box.innerText();
      const bounds = await box.boundingBox();
      const shot = await box.screenshot();
      await page.screenshot({ path: join(tmpdir(), `lr-consent-page-${name}.png`), fullPage: true });
      return { text, bounds, shot };
    } finally {
      await page.close();
    }
  }

  it('shows the statement as text and draws it in its box', async () => {
    const shown = await render('statement');
    const blank = await render('statement-hidden', { hideStatementGlyphs: true });
    expect(shown.text).toBe(STATEMENT);
    // Same box: the only difference between the two renderings is the statement's glyphs.
    expect(blank.bounds).toEqual(shown.bounds);
    expect(shown.bounds!.height).toBeGreaterThan(20);
    expect(Buffer.compare(shown.shot, blank.shot)).not.toBe(0);
  }, 60_000);
});
