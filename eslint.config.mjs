import path from 'node:path';
import tseslint from 'typescript-eslint';
import { ROOT, upwardArrow } from './scripts/house.mjs';

// The house (scripts/house.mjs): the areas as rooms, bottom to top. An import (`import type` too) from a
// lower room into a higher one fails, unless scripts/house.mjs allows it with a reason. So src/http imports
// no area nor src/app, src/sms never imports src/channels, and an area reaches a higher one through a port.
const noUpwardImport = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { up: '{{from}} is below {{to}} in the house (scripts/house.mjs): reach {{to}} through a port or deps interface {{from}} declares, or move the code.' },
  },
  create(context) {
    const file = path.relative(ROOT, context.filename);
    const check = (source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.relative(ROOT, path.resolve(path.dirname(context.filename), source.value));
      const up = upwardArrow(file, target);
      if (up && !up.allowed) context.report({ node: source, messageId: 'up', data: { from: up.from, to: up.to } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportType: (node) => check(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
      TSExternalModuleReference: (node) => check(node.expression),
      'CallExpression[callee.name="require"]': (node) => check(node.arguments[0]),
    };
  },
};

// What a service or repo may not import (everything of an area below the HTTP layer).
const belowHttp = [
  { group: ['express', 'express/*'], message: 'Only routes files meet Express; services throw AppError.' },
  { group: ['**/http', '**/http/*', '!**/platform/*'], message: 'Services and repos do not import src/http (routes files do).' },
  { regex: '(^|/)workflows(/index)?$|(^|/)workflows/[^/]+\\.workflow$', message: 'Import workflow contracts from workflows/shared, never a workflow file.' },
];
// src/config is the lowest floor: the only reader of process.env, it depends on zod alone.
const configZodOnly = { regex: '^(?!zod$|\\./)', message: 'src/config depends on zod only (and its own slices).' };

const tsFiles = { languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } };

export default tseslint.config(
  {
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ...tsFiles,
    plugins: { ...tsFiles.plugins, house: { rules: { 'no-upward-import': noUpwardImport } } },
    rules: { 'house/no-upward-import': 'error' },
  },
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
  // Services, repos and everything else of an area below the HTTP layer: no Express, no src/http (src/app is above every area: the house rule),
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
    files: ['src/config/**/*.ts'],
    ...tsFiles,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [configZodOnly] }] },
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
  // another routes file, so no import circle forms around one. knowledge.routes.ts still mounts files.routes.ts;
  // the CLI's operator server (src/cli, above src/app) serves the CLI's one routes file on its own listener.
  {
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/app/**', 'src/knowledge/knowledge.routes.ts', 'src/cli/operator-server.ts'],
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
