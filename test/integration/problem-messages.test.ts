import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_MEDIA_TYPE } from '../../src/http/responses.schema.js';
import { startTestApp, type TestApp } from '../support/app.js';
import type { OpenApiDocument } from '../support/openapi-check.js';

// The web app says every problem the API can answer in the page's language: its table
// (web/src/lib/problem-messages.ts) has a message for each code /api/openapi.json lists (problem
// answers name their codes in backticks), and none for a code the document does not list, except
// the app's own (`network`). Each message is in both catalogues.

const ROOT = path.resolve(import.meta.dirname, '../..');
let kura: TestApp;
let spec: OpenApiDocument;
beforeAll(async () => {
  kura = await startTestApp();
  spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
});
afterAll(() => kura.close());

interface DocumentedResponse {
  description?: string;
  content?: Record<string, unknown>;
}

/** Every code a problem answer of the document names: `snake_case` in backticks. */
function documentedCodes(document: OpenApiDocument): Set<string> {
  const codes = new Set<string>();
  for (const methods of Object.values(document.paths))
    for (const operation of Object.values(methods) as Array<{ responses?: Record<string, DocumentedResponse> }>)
      for (const response of Object.values(operation.responses ?? {})) {
        if (!(PROBLEM_MEDIA_TYPE in (response.content ?? {}))) continue;
        for (const [, code] of (response.description ?? '').matchAll(/`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`/g)) codes.add(code!);
      }
  return codes;
}

/** The table's codes and the client's own, read from its source (no build of the web app needed). */
async function tableCodes(): Promise<{ table: Set<string>; client: Set<string> }> {
  const source = await readFile(path.join(ROOT, 'web/src/lib/problem-messages.ts'), 'utf8');
  const body = source.slice(source.indexOf('PROBLEM_MESSAGES'), source.indexOf('};', source.indexOf('PROBLEM_MESSAGES')));
  const table = new Set([...body.matchAll(/^ {2}([a-z0-9_]+): /gm)].map(([, code]) => code!));
  const client = new Set([...(/CLIENT_CODES[^=]*= \[([^\]]*)\]/.exec(source)?.[1] ?? '').matchAll(/'([a-z0-9_]+)'/g)].map(([, code]) => code!));
  return { table, client };
}

describe('the web app’s words for API problems', () => {
  it('has a message for every problem code the OpenAPI document lists', async () => {
    const documented = documentedCodes(spec);
    const { table } = await tableCodes();
    expect(documented.size).toBeGreaterThan(40);
    expect([...documented].filter((code) => !table.has(code)).sort()).toEqual([]);
  });

  it('names no code the document does not list, besides its own', async () => {
    const documented = documentedCodes(spec);
    const { table, client } = await tableCodes();
    expect([...client]).toEqual(['network']);
    expect([...table].filter((code) => !documented.has(code) && !client.has(code)).sort()).toEqual([]);
  });

  it('finds each message, problem_<code>, in both catalogues', async () => {
    const { table } = await tableCodes();
    const source = await readFile(path.join(ROOT, 'web/src/lib/problem-messages.ts'), 'utf8');
    for (const locale of ['en', 'ja']) {
      const catalogue = JSON.parse(await readFile(path.join(ROOT, `web/messages/${locale}.json`), 'utf8')) as Record<string, unknown>;
      expect([...table].filter((code) => typeof catalogue[`problem_${code}`] !== 'string').sort(), locale).toEqual([]);
    }
    for (const code of table) expect(source).toContain(`${code}: `);
    for (const code of table) expect(source).toMatch(new RegExp(`m\\.problem_${code}\\(`));
  });
});
