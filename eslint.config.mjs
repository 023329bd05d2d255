import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'var/**', 'test-artifacts/**', 'test/.generated/**', 'bench/results/**', 'clients/typescript/schema.d.ts', 'clients/typescript/dashboard.d.ts', 'clients/typescript/dist/**', 'apps/dashboard/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': 'error',
      // Spreading an array into a call puts every element on the stack: a few hundred thousand overflow it
      // (the bench crashed so once). Loops or reductions instead (bench/numbers.js has lowest/highest/appendAll).
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name=/^(min|max)$/] > SpreadElement",
          message: 'Math.min/max(...array) overflows the stack on large arrays: use a loop or reduce.',
        },
        {
          selector: 'CallExpression[callee.property.name=/^(push|unshift|apply|fromCharCode)$/] > SpreadElement',
          message: 'push(...array) overflows the stack on large arrays: use a loop.',
        },
      ],
    },
  },
  {
    // A table's entity belongs to the lib that owns the table (docs/architecture.md, Table ownership):
    // other libs use that lib's services and exported types, never its entities. The ownership test
    // (libs/core/src/database/table-ownership.spec.ts) checks the writes and the named imports too.
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@app/*/entities', '@app/*/entities/*', '@app/*/**/entities/*'], message: "Another lib's entities are its own: use its services or exported types." },
            { group: ['../**/libs/*/src/entities/*', '../../*/src/entities/*', '../../../*/src/entities/*', '../../../../*/src/entities/*'], message: "Another lib's entities are its own: use its services or exported types." },
          ],
        },
      ],
    },
  },
  {
    // The dashboard runs in the browser.
    files: ['apps/dashboard/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', Response: 'readonly', FormData: 'readonly', URLSearchParams: 'readonly' } },
  },
  {
    // The redemption page's script is served to browsers as written (ES2017, no modules, no build step).
    files: ['libs/redemption/src/assets/**/*.js'],
    languageOptions: {
      ecmaVersion: 2017,
      sourceType: 'script',
      globals: {
        ...{ window: 'readonly', document: 'readonly', location: 'readonly', navigator: 'readonly', crypto: 'readonly', fetch: 'readonly', setTimeout: 'readonly' },
        // Node's, allowed everywhere else, do not exist in a browser.
        ...{ process: 'off', require: 'off', module: 'off', __dirname: 'off', Buffer: 'off', console: 'off' },
      },
    },
  },
  {
    // The API composes only what serves HTTP; the worker side is composed by the worker app itself
    // (its process and its thread) and by the tests, never imported here.
    files: ['apps/api/**/*.ts'],
    rules: {
      // Repeats the entity patterns above: a later no-restricted-imports replaces the earlier one.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/worker/**', '**/apps/worker', '**/apps/worker/**'], message: 'apps/api must not import the worker app.' },
            { group: ['@app/*/entities', '@app/*/entities/*', '@app/*/**/entities/*', '../**/libs/*/src/entities/*'], message: "Another lib's entities are its own: use its services or exported types." },
          ],
        },
      ],
    },
  },
);
