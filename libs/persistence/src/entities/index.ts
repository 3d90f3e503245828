import { ProcessedMessage } from './processed-message.entity';

export { ProcessedMessage };

/** Every entity; the data source registers exactly these. */
export const ENTITIES = [ProcessedMessage];
