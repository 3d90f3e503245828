import { EndpointName, RateLimit } from '@lr/contracts';

/** Who is calling: the API key and the affiliate it belongs to (set by ApiKeyGuard). */
export interface Principal {
  keyId: string;
  affiliateId: string;
  limits: Partial<Record<EndpointName, RateLimit>>;
}

/** Who is calling the buyer API (docs/returns.md): the API key and the school it belongs to (set by BuyerKeyGuard). */
export interface BuyerPrincipal {
  keyId: string;
  schoolId: string;
  limits: Partial<Record<EndpointName, RateLimit>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    buyer?: BuyerPrincipal;
  }
}
