import { Logger } from '@nestjs/common';
import type { PartnerRef } from '@lr/contracts';
import { metricsRegistry } from '@lr/observability';
import { PartnerCircuitOpenError } from '../adapters/partner-errors';
import { DEFAULT_BREAKER_SETTINGS, PartnerCircuitBreakers } from './circuit-breakers';

Logger.overrideLogger(false);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const newPartner = (): PartnerRef => ({
  id: `p-${++n}`,
  name: `Partner ${n}`,
  adapter: 'sandbox',
  baseUrl: 'http://x.test',
  timeoutMs: 1000,
});

async function gaugeOf(partner: PartnerRef): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric('partner_circuit_open')?.get();
  return metric?.values.find((v) => v.labels.partner === partner.name)?.value;
}

describe('PartnerCircuitBreakers', () => {
  let breakers: PartnerCircuitBreakers;
  const RESET_MS = 100;
  const fail = () => Promise.reject(new Error('partner down'));
  const ok = () => Promise.resolve('ok');

  beforeEach(() => {
    breakers = new PartnerCircuitBreakers({ resetTimeout: RESET_MS });
  });
  afterEach(() => breakers.onModuleDestroy());

  it('uses the settings of the design by default', () => {
    expect(DEFAULT_BREAKER_SETTINGS).toEqual({
      errorThresholdPercentage: 50,
      volumeThreshold: 5,
      rollingCountTimeout: 10_000,
      resetTimeout: 5_000,
    });
  });

  it('stays closed below the volume threshold, then opens when more than half the calls failed', async () => {
    const partner = newPartner();
    for (let i = 0; i < 4; i++) await expect(breakers.fire(partner, fail)).rejects.toThrow('partner down');
    expect(breakers.state(partner.id)).toBe('closed');
    await expect(breakers.fire(partner, fail)).rejects.toThrow('partner down');
    expect(breakers.state(partner.id)).toBe('open');
    expect(await gaugeOf(partner)).toBe(1);
  });

  it('does not open while at most half the calls fail', async () => {
    const partner = newPartner();
    for (let i = 0; i < 5; i++) await breakers.fire(partner, ok);
    for (let i = 0; i < 5; i++) await breakers.fire(partner, fail).catch(() => undefined);
    expect(breakers.state(partner.id)).toBe('closed');
    expect(await gaugeOf(partner)).toBe(0);
  });

  it('fails fast without calling the partner while open', async () => {
    const partner = newPartner();
    for (let i = 0; i < 5; i++) await breakers.fire(partner, fail).catch(() => undefined);
    const call = jest.fn(ok);
    await expect(breakers.fire(partner, call)).rejects.toBeInstanceOf(PartnerCircuitOpenError);
    expect(call).not.toHaveBeenCalled();
  });

  it('lets one trial call through after resetTimeout (half-open) and closes when it succeeds', async () => {
    const partner = newPartner();
    for (let i = 0; i < 5; i++) await breakers.fire(partner, fail).catch(() => undefined);
    await sleep(RESET_MS + 50);
    expect(breakers.state(partner.id)).toBe('half_open');
    let finishTrial: (v: string) => void = () => undefined;
    const trial = breakers.fire(partner, () => new Promise<string>((resolve) => (finishTrial = resolve)));
    // While the trial is in flight, other calls still fail fast.
    const other = jest.fn(ok);
    await expect(breakers.fire(partner, other)).rejects.toBeInstanceOf(PartnerCircuitOpenError);
    expect(other).not.toHaveBeenCalled();
    finishTrial('ok');
    await expect(trial).resolves.toBe('ok');
    expect(breakers.state(partner.id)).toBe('closed');
    expect(await gaugeOf(partner)).toBe(0);
    await expect(breakers.fire(partner, ok)).resolves.toBe('ok');
  });

  it('opens again when the half-open trial fails', async () => {
    const partner = newPartner();
    for (let i = 0; i < 5; i++) await breakers.fire(partner, fail).catch(() => undefined);
    await sleep(RESET_MS + 50);
    await expect(breakers.fire(partner, fail)).rejects.toThrow('partner down');
    expect(breakers.state(partner.id)).toBe('open');
    expect(await gaugeOf(partner)).toBe(1);
    await expect(breakers.fire(partner, ok)).rejects.toBeInstanceOf(PartnerCircuitOpenError);
  });

  it('keeps one breaker per partner: one partner failing does not stop another', async () => {
    const down = newPartner();
    const up = newPartner();
    for (let i = 0; i < 5; i++) await breakers.fire(down, fail).catch(() => undefined);
    expect(breakers.state(down.id)).toBe('open');
    await expect(breakers.fire(up, ok)).resolves.toBe('ok');
    expect(breakers.state(up.id)).toBe('closed');
  });
});
