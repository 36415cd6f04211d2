// Decisions: docs/decisions/0068-lint-and-format.md
// ESLint rule "kura/layers": which part of the house may import which (docs/ARCHITECTURE.md).
// Relative specifiers are resolved against the importing file, so the rule keeps holding when a
// layer grows sub-folders (core/records/x.ts importing ../errors.js stays inside core).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Layers a file may import besides its own: `values` with any import, `types` only with `import type` /
 * `export type`. A layer missing here (bench, test, scripts) is not checked.
 */
export const ALLOWED = {
  core: { values: ['core'], types: [] },
  adapters: { values: ['core', 'shared'], types: ['config'] },
  http: { values: ['core', 'shared'], types: ['config'] },
  jobs: { values: ['core', 'shared'], types: ['config'] },
  config: { values: ['core', 'config', 'shared'], types: [] },
  shared: { values: ['shared'], types: [] },
  composition: { values: ['core', 'adapters', 'http', 'jobs', 'config', 'shared', 'composition'], types: [] },
  web: { values: ['web'], types: ['core', 'http', 'config', 'shared'] },
};

/**
 * Core's domains, from the bottom up, and the domains each may import besides its own. `kernel` is
 * the files at core's root (errors, ids, rate limits, the shared vocabulary); every domain may use
 * it, and it uses none. Anything not listed is a back-edge and refused; a new folder under core
 * must be placed here before it may import, or be imported by, another domain.
 */
export const CORE_DOMAINS = {
  kernel: [],
  sources: ['kernel'],
  accounts: ['kernel'],
  records: ['kernel'],
  archive: ['kernel', 'records'],
  channels: ['kernel', 'records'],
  search: ['kernel', 'records'],
  capture: ['kernel', 'records', 'archive', 'sources'],
  playback: ['kernel', 'records', 'archive', 'capture'],
  chat: ['kernel', 'records', 'archive', 'capture'],
  moments: ['kernel', 'records', 'accounts'],
  'record-actions': ['kernel', 'records', 'archive', 'capture', 'chat', 'sources', 'accounts'],
  retention: ['kernel', 'records', 'archive', 'capture', 'accounts', 'record-actions'],
  follows: ['kernel', 'records', 'sources', 'capture', 'record-actions', 'retention'],
  notifications: ['kernel', 'records', 'sources', 'accounts', 'follows'],
};

/**
 * The adapter folders, from the bottom up, and the folders each may import besides its own: as in
 * core, anything not listed is a back-edge and refused, and a new folder is placed here before it
 * may import, or be imported by, another. `os` is what the operating system tells (free disk space,
 * a program's version); `system` checks the whole machine, so it sits on top.
 */
export const ADAPTER_FOLDERS = {
  os: [],
  outbound: [],
  db: [],
  'embedded-postgres': [],
  storage: [],
  media: [],
  auth: [],
  ytdlp: ['os'],
  search: ['db'],
  sources: ['outbound', 'ytdlp'],
  notifications: ['outbound'],
  twitch: ['outbound'],
  follows: ['sources', 'ytdlp', 'twitch'],
  capture: ['db', 'os', 'sources'],
  system: ['os', 'ytdlp'],
};

/** The folder of a file under `src/<layer>/` (`kernel` for the layer's own root files); null outside it. */
function folderOf(relativePath, layer) {
  const p = relativePath.split(path.sep).join('/');
  if (!p.startsWith(`src/${layer}/`)) return null;
  const parts = p.slice(`src/${layer}/`.length).split('/');
  return parts.length === 1 ? 'kernel' : parts[0];
}

/** The core domain of a file under src/core (`kernel` for core's own root files); null outside core. */
export function domainOf(relativePath) {
  return folderOf(relativePath, 'core');
}

/** The layer a file belongs to, from its path relative to the repository root. */
export function layerOf(relativePath) {
  const p = relativePath.split(path.sep).join('/');
  const top = p.match(/^src\/(core|adapters|http|jobs)\//);
  if (top) return top[1];
  if (p.startsWith('web/')) return 'web';
  if (p.startsWith('src/shared/')) return 'shared';
  if (p.startsWith('src/config/')) return 'config';
  // main.ts, cli.ts and whatever else wires the server (search-wiring.ts, a wiring/ folder)
  if (p.startsWith('src/')) return 'composition';
  return null;
}

function isTypeOnly(node) {
  return node.importKind === 'type' || node.exportKind === 'type';
}

function check(context, node, source) {
  if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
  const from = layerOf(path.relative(ROOT, context.filename));
  const rules = from && ALLOWED[from];
  if (!rules) return;
  const target = layerOf(path.relative(ROOT, path.resolve(path.dirname(context.filename), source.value)));
  if (target === null) {
    context.report({ node: source, messageId: 'outside', data: { from, spec: source.value } });
    return;
  }
  if (from === target && (from === 'core' || from === 'adapters')) {
    checkFolders(context, source, from);
    return;
  }
  if (target === from || rules.values.includes(target)) return;
  if (rules.types.includes(target)) {
    if (!isTypeOnly(node)) context.report({ node: source, messageId: 'typeOnly', data: { from, to: target, spec: source.value } });
    return;
  }
  context.report({ node: source, messageId: 'forbidden', data: { from, to: target, spec: source.value } });
}

/** Inside core or adapters: a folder imports only itself and the folders its table (CORE_DOMAINS, ADAPTER_FOLDERS) gives it. */
function checkFolders(context, source, layer) {
  const from = folderOf(path.relative(ROOT, context.filename), layer);
  const to = folderOf(path.relative(ROOT, path.resolve(path.dirname(context.filename), source.value)), layer);
  if (from === null || to === null || from === to) return;
  const table = layer === 'core' ? CORE_DOMAINS : ADAPTER_FOLDERS;
  const allowed = table[from];
  if (allowed === undefined) {
    context.report({ node: source, messageId: 'unplacedDomain', data: { layer, domain: from, table: layer === 'core' ? 'CORE_DOMAINS' : 'ADAPTER_FOLDERS' } });
    return;
  }
  if (!allowed.includes(to)) context.report({ node: source, messageId: 'domainBackEdge', data: { layer, from, to, spec: source.value } });
}

export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps each layer to the imports docs/ARCHITECTURE.md allows' },
    schema: [],
    messages: {
      forbidden: '{{from}} must not import {{to}} ("{{spec}}"): see docs/ARCHITECTURE.md',
      typeOnly: '{{from}} may import {{to}} only with `import type` ("{{spec}}"): see docs/ARCHITECTURE.md',
      outside: '{{from}} must not import "{{spec}}", which is outside the layers: see docs/ARCHITECTURE.md',
      domainBackEdge: '{{layer}}/{{from}} must not import {{layer}}/{{to}} ("{{spec}}"): see the folder tables in docs/ARCHITECTURE.md',
      unplacedDomain:
        '{{layer}}/{{domain}} is not in the folder table ({{table}} in scripts/lint/architecture-rule.js): place it before it imports another folder',
    },
  },
  create(context) {
    const visit = (node) => check(context, node, node.source);
    return {
      ImportDeclaration: visit,
      ExportNamedDeclaration: visit,
      ExportAllDeclaration: visit,
      ImportExpression: (node) => check(context, node, node.source.type === 'Literal' ? node.source : null),
    };
  },
};

export const architecturePlugin = { meta: { name: 'kura-architecture' }, rules: { layers: layersRule } };
