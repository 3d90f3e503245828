// The linter: ESLint's and typescript-eslint's recommended rules on every
// TypeScript file of the house (apps, libs, packages, bench, test, scripts).
// The formatter (Prettier, .prettierrc.json) owns the layout; nothing here
// argues with it. A rule switched off says why beside it.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'packages/client/src/generated/**', 'packages/client/dist/**'],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
