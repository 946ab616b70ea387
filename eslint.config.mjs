import tseslint from 'typescript-eslint';

// What a service or repo may not import (everything of an area below the HTTP layer).
const belowHttp = [
  { group: ['express', 'express/*'], message: 'Only routes files meet Express; services throw AppError.' },
  { group: ['**/http', '**/http/*', '!**/platform/*'], message: 'Services and repos do not import src/http (routes files do).' },
  { group: ['**/app', '**/app/*'], allowTypeImports: true, message: 'Services and repos do not import src/app.' },
  { regex: '(^|/)workflows(/index)?$|(^|/)workflows/[^/]+\\.workflow$', message: 'Import workflow contracts from workflows/shared, never a workflow file.' },
];
// src/sms is a floor below src/channels: the sms conversation adapter uses the sms area, never the reverse.
const smsBelowChannels = { regex: '^(\\.\\./)+channels(/|$)', message: 'src/sms never imports src/channels (channels use sms, never the reverse).' };
// The areas a channel adapter calls (conversations and their runs, agents, knowledge, numbers) are floors below
// src/channels too: they reach a channel only through a port (ReplyChannel in conversations, InboundChannelPort).
const belowChannels = { regex: '^(\\.\\./)+channels(/|$)', message: 'This area is below src/channels: reach a channel through its port (conversations/reply-channels.ts, domain/channels.ts).' };
const areasBelowChannels = ['src/{runs,conversations,agents,knowledge,numbers}/**/*.ts'];

// src/config is the lowest floor: the only reader of process.env, it depends on zod alone.
const configZodOnly = { regex: '^(?!zod$|\\./)', message: 'src/config depends on zod only (and its own slices).' };

// src/http holds Express building blocks only: no composition (src/app) and no area.
const httpBuildingBlocks = {
  regex: '^(\\.\\./)+(app|accounts|agents|channels|console|conversations|knowledge|links|numbers|runs|sms|verifications|webhooks|temporal)(/|$)',
  message: 'src/http never imports src/app or an area (composition is in src/app).',
};

const tsFiles = { languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } };

export default tseslint.config(
  // Workflow code runs in Temporal's deterministic sandbox: it may import @temporalio/workflow, other
  // workflow files and *types* from activities/ and src/. Anything with I/O, clocks or randomness is refused.
  {
    files: ['workflows/**/*.ts'],
    ...tsFiles,
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
  },
  // Services, repos and everything else of an area below the HTTP layer: no Express, no src/http or src/app,
  // and no workflow file (only the contracts in workflows/shared). Only an area's *.routes.ts meets HTTP.
  {
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/http/**', 'src/app/**', 'src/console/**', 'src/**/*.routes.ts', 'src/main*.ts', 'src/entry-point.ts', 'src/cli.ts'],
    ...tsFiles,
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: belowHttp,
        },
      ],
    },
  },
  {
    files: ['src/sms/**/*.ts'],
    ignores: ['src/sms/**/*.routes.ts'],
    ...tsFiles,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...belowHttp, smsBelowChannels] }] },
  },
  {
    files: ['src/sms/**/*.routes.ts'],
    ...tsFiles,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [smsBelowChannels] }] },
  },
  {
    files: areasBelowChannels,
    ignores: ['src/**/*.routes.ts'],
    ...tsFiles,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...belowHttp, belowChannels] }] },
  },
  {
    files: areasBelowChannels.map((g) => g.replace('*.ts', '*.routes.ts')),
    ...tsFiles,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [belowChannels] }] },
  },
  {
    files: ['src/config/**/*.ts'],
    ...tsFiles,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [configZodOnly] }] },
  },
  {
    files: ['src/http/**/*.ts'],
    ...tsFiles,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [httpBuildingBlocks] }] },
  },
  // The planner by role: the rest of the service sees only its port and factory; the local planner never
  // reaches a remote provider (remote providers may reuse local pieces, not the reverse).
  {
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/agents/planner/**'],
    ...tsFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/agents/planner/local/*', '**/agents/planner/remote/*', '**/agents/planner/local', '**/agents/planner/remote'], message: 'Use the planner through agents/planner/port (types) and agents/planner/factory.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/agents/planner/local/**/*.ts'],
    ...tsFiles,
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../remote', '../remote/*'], message: 'The local planner does not depend on remote providers.' }] }],
    },
  },
  // A routes file is imported only by the app's route list (src/app, and the composition in src/app/create-app.ts):
  // routes files share helpers through a module of their area (the console's console-page.ts), never through
  // another routes file, so no import circle forms around one. knowledge.routes.ts still mounts files.routes.ts.
  {
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/app/**', 'src/knowledge/knowledge.routes.ts'],
    ...tsFiles,
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['ImportDeclaration', 'ImportExpression', 'ExportNamedDeclaration', 'ExportAllDeclaration'].map((node) => ({
          selector: `${node}[source.value=/\\.routes$/]`,
          message: 'Only the app\'s route list (src/app/routes.ts) imports a routes file; share helpers through a module of the area.',
        })),
      ],
    },
  },
);
