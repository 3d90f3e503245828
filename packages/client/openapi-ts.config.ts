import { defineConfig } from '@hey-api/openapi-ts';

/**
 * Generates the typed client (src/generated) from the gateway's OpenAPI
 * document (openapi.json, exported from the decorators: docs/openapi.md).
 * Run from the repository root with `npm run client:generate`; `npm run build`
 * runs it first. `CLIENT_GENERATED_DIR` redirects the output (the drift test
 * generates into a temporary folder and compares).
 */
export default defineConfig({
  input: 'packages/client/openapi.json',
  output: {
    path: process.env.CLIENT_GENERATED_DIR ?? 'packages/client/src/generated',
    tsConfigPath: 'packages/client/tsconfig.json',
  },
  plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
});
