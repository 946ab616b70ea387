import tseslint from 'typescript-eslint';

// Workflow code runs in Temporal's deterministic sandbox: it may import @temporalio/workflow, other
// workflow files and *types* from activities/ and src/. Anything with I/O, clocks or randomness is refused.
export default tseslint.config({
  files: ['workflows/**/*.ts'],
  languageOptions: { parser: tseslint.parser },
  plugins: { '@typescript-eslint': tseslint.plugin },
  rules: {
    'no-restricted-imports': 'off',
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: ['../activities', '../activities/*', '../../activities', '../../activities/*'], allowTypeImports: true, message: 'Workflows import only types from activities.' },
          { group: ['../src/*', '../../src/*', '!../src/domain', '!../src/domain/*'], allowTypeImports: true, message: 'Workflows import only types from src (src/domain pure rules excepted).' },
          { group: ['node:*', 'fs', 'path', 'crypto', 'pg', 'kysely', 'express', 'http', 'https', 'net', 'child_process'], message: 'No I/O in workflow code.' },
        ],
      },
    ],
    'no-restricted-globals': ['error', { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' }, { name: 'fetch', message: 'Do I/O in activities.' }],
    'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Use uuid4()/workflow randomness from @temporalio/workflow.' }],
    'no-console': 'error',
  },
});
