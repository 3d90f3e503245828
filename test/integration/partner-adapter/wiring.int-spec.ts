import { Test } from '@nestjs/testing';
import { MESSAGE_TYPES } from '@lr/contracts';
import { AmqpConnection, AmqpContext } from '@lr/messaging';
import { PartnerAdapterRegistry } from '../../../apps/partner-adapter/src/adapters/adapter-registry';
import { PartnerCalls } from '../../../apps/partner-adapter/src/calls/partner-calls';
import { PartnerCircuitBreakers } from '../../../apps/partner-adapter/src/calls/circuit-breakers';
import { SearchPartnerHandler } from '../../../apps/partner-adapter/src/search-partner/search-partner.handler';
import { SearchPartner } from '../../../apps/partner-adapter/src/search-partner/search-partner.usecase';
import { sandboxPartner, searchRequest, useSandbox } from './harness';

describe('partner-adapter Nest wiring', () => {
  const s = useSandbox();

  it("resolves main.ts's controllers and providers, and the handler publishes the answer with the request's correlationId", async () => {
    const publish = jest.fn(async () => 'id');
    const moduleRef = await Test.createTestingModule({
      controllers: [SearchPartnerHandler],
      providers: [PartnerAdapterRegistry, PartnerCircuitBreakers, PartnerCalls, SearchPartner, { provide: AmqpConnection, useValue: { publish } }],
    }).compile();
    await moduleRef.init();
    try {
      const msg = searchRequest(sandboxPartner(s.sandbox, 'match=all'));
      const ctx = { getMeta: () => ({ correlationId: 'corr-7' }) } as unknown as AmqpContext;
      await moduleRef.get(SearchPartnerHandler).search(msg, ctx);
      expect(publish).toHaveBeenCalledWith(
        MESSAGE_TYPES.PartnerSearchAnswered,
        expect.objectContaining({ searchId: msg.searchId, partnerId: msg.partner.id, outcome: 'answered' }),
        { messageId: `partner-answer:${msg.searchId}:${msg.partner.id}`, correlationId: 'corr-7' },
      );
    } finally {
      await moduleRef.close();
    }
  });
});
