import { Logger } from '@nestjs/common';
import { metricsRegistry } from '@lr/observability';
import { reportDropped } from './dropped-results';

describe('reportDropped', () => {
  it('counts refused markup by partner and field, and logs the path, never the text', async () => {
    const warn = jest.fn();
    const partner = { id: 'p-1', name: 'Markup partner', adapter: 'sandbox', baseUrl: 'http://p.example', timeoutMs: 1000 };
    const value = async (field: string) =>
      (await metricsRegistry.getSingleMetric('partner_text_refused_total')?.get())?.values.find(
        (v) => v.labels.partner === 'Markup partner' && v.labels.field === field,
      )?.value ?? 0;
    const before = await value('tcpa_text');
    reportDropped({ warn } as unknown as Logger, partner, 's-1', [
      {
        index: 0,
        reason: 'markup',
        externalId: 'w-1',
        field: 'tcpa_text',
        problem: 'results[0].tcpa_text holds markup (tag): display text must be plain text',
      },
      { index: 1, reason: 'unknown_offer', externalId: 'other' },
    ]);
    expect(await value('tcpa_text')).toBe(before + 1);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({
        dropped: { markup: 1, unknown_offer: 1 },
        examples: [
          expect.objectContaining({ reason: 'markup', field: 'tcpa_text', problem: expect.stringContaining('results[0].tcpa_text') }),
          expect.not.objectContaining({ field: expect.anything() }),
        ],
      }),
    );
  });
});
