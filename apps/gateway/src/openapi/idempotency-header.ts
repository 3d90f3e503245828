import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_FIELD, IDEMPOTENCY_KEY_MAX_LENGTH } from '@lr/domain';

/** The optional `Idempotency-Key` request header of search and leads (docs/idempotency.md), as the domain reads it. */
export const IdempotencyKeyHeader = () =>
  ApiHeader({
    name: IDEMPOTENCY_KEY_FIELD,
    required: false,
    description:
      'Names this request for 24 hours (an addition to the contract). A retry with the same key and the same body answers the original answer ' +
      'under the same `svc_lead_id` and never decides twice; a retry while the first still runs waits for it. The same key with another body is ' +
      '400 `INVALID_FIELD` (`field` `Idempotency-Key`, `error` `idempotency_key_reused`). 1 to 255 printable ASCII characters, no spaces; a UUID per request is usual.',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      pattern: '^[\\x21-\\x7E]+$',
      example: '6f1c2b1e-9a53-4d8e-8f5e-0d8a3c2b7e41',
    },
  });
