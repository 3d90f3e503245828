/**
 * @lead-router/client: the generated operations and types of the affiliate
 * API (src/generated, from openapi.json), and the flow helper around them.
 */
export * from './generated';
export { createClient, createConfig } from './generated/client';
export type { Client } from './generated/client';
export * from './lead-router-client';
export * from './retry';
