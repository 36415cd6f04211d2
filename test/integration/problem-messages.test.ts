import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_MEDIA_TYPE } from '../../src/http/responses.schema.js';
import { startTestApp, type TestApp } from '../support/app.js';
import type { OpenApiDocument } from '../support/openapi-check.js';

// The web app says every problem the API can answer in the page's language: its table
// (web/src/lib/problem-messages.ts) has a message for each code /api/openapi.json lists (problem
// answers name their codes in backticks), and none for a code the document does not list, except
// the app's own (`network`) and the search engine's (Meilisearch's error shape). Each message is in
// both catalogues.

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

/** The table's codes and the client's own (the English build's table, as the unit tests of web/src/lib import it). */
async function tableCodes(): Promise<{ table: Set<string>; client: Set<string> }> {
  const { PROBLEM_MESSAGES, CLIENT_CODES } = await import('../../web/src/lib/problem-messages.js');
  return { table: new Set(Object.keys(PROBLEM_MESSAGES)), client: new Set(CLIENT_CODES) };
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
    expect([...client]).toEqual(['network', 'search_warming', 'too_many_search_requests', 'invalid_search_q']);
    expect([...table].filter((code) => !documented.has(code) && !client.has(code)).sort()).toEqual([]);
  });

  it('finds each message, problem_<code>, in both catalogues, and says the English one for its code', async () => {
    const { PROBLEM_MESSAGES } = await import('../../web/src/lib/problem-messages.js');
    const catalogues = await Promise.all(
      ['en', 'ja'].map(async (locale) => JSON.parse(await readFile(path.join(ROOT, `web/messages/${locale}.json`), 'utf8')) as Record<string, unknown>),
    );
    for (const [index, catalogue] of catalogues.entries()) {
      expect(
        Object.keys(PROBLEM_MESSAGES)
          .filter((code) => typeof catalogue[`problem_${code}`] !== 'string')
          .sort(),
        ['en', 'ja'][index],
      ).toEqual([]);
    }
    const english = catalogues[0] as Record<string, string>;
    for (const [code, message] of Object.entries(PROBLEM_MESSAGES)) {
      expect(message({ detail: 'DETAIL' }), code).toBe(english[`problem_${code}`]?.replace('{detail}', 'DETAIL'));
    }
  });
});
