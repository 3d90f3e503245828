import { SetMetadata } from '@nestjs/common';
import { EndpointName } from '@lr/contracts';

export const ENDPOINT_KEY = 'lr:endpoint';

/** Names the contract endpoint a handler serves; its rate-limit budget is per key and per this name. */
export const Endpoint = (name: EndpointName) => SetMetadata(ENDPOINT_KEY, name);
