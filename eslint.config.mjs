// The linter: ESLint's and typescript-eslint's recommended rules on every
// TypeScript file of the house (apps, libs, packages, bench, test, scripts).
// The formatter (Prettier, .prettierrc.json) owns the layout; nothing here
// argues with it. A rule switched off says why beside it.
import eslint from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'packages/client/src/generated/**', 'packages/client/dist/**'],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript here is Node.js scripts and configuration (CommonJS in .js, modules in .mjs).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' }, // CommonJS files load modules with require(); that is their import.
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
