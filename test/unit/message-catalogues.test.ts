import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The web UI's message catalogues (docs/i18n.md): every language has exactly the messages of
// English, the base, each with the same {placeholders} and none empty; the inlang project lists
// exactly the catalogues there are. A problem is named by catalogue and key, so it can be fixed.
const WEB = path.join(import.meta.dirname, '..', '..', 'web');

/** A message as the inlang message format writes it: text, or the variant form (plurals). */
type Message = string | Array<{ declarations?: string[]; selectors?: string[]; match?: Record<string, string> }>;
type Catalogue = Record<string, Message>;

interface Project {
  baseLocale: string;
  locales: string[];
  /** Each catalogue by its file's name without `.json`. */
  catalogues: Record<string, Catalogue>;
}

async function readProject(web: string): Promise<Project> {
  const settings = JSON.parse(await readFile(path.join(web, 'project.inlang', 'settings.json'), 'utf8')) as { baseLocale: string; locales: string[] };
  const files = (await readdir(path.join(web, 'messages'))).filter((file) => file.endsWith('.json')).sort();
  const catalogues: Record<string, Catalogue> = {};
  for (const file of files) {
    const { $schema: _schema, ...messages } = JSON.parse(await readFile(path.join(web, 'messages', file), 'utf8')) as Catalogue;
    catalogues[file.replace(/\.json$/, '')] = messages;
  }
  return { baseLocale: settings.baseLocale, locales: settings.locales, catalogues };
}

/** The {names} a pattern uses (`{count}`, `{ count }`). */
const namesIn = (pattern: string) => [...pattern.matchAll(/\{\s*([A-Za-z_$][\w$]*)[^}]*\}/g)].map((found) => found[1] as string);

/** The texts of a message: itself, or each variant's. */
const textsOf = (message: Message): string[] => (typeof message === 'string' ? [message] : message.flatMap((variant) => Object.values(variant.match ?? {})));

/**
 * The placeholders a message is given: those its text uses; of the variant form, its `input`
 * declarations and what any variant uses, but for the `local` names it declares itself.
 */
function placeholdersOf(message: Message): string[] {
  const names = new Set(textsOf(message).flatMap(namesIn));
  if (typeof message !== 'string') {
    for (const declaration of message.flatMap((variant) => variant.declarations ?? [])) {
      const [kind, name] = declaration.trim().split(/\s+/);
      if (kind === 'input' && name !== undefined) names.add(name);
      if (kind === 'local' && name !== undefined) names.delete(name);
    }
  }
  return [...names].sort();
}

/** Every problem of the project, one line each; none when it is right. */
function problemsOf(project: Project): string[] {
  const problems: string[] = [];
  const files = Object.keys(project.catalogues).sort();
  if (JSON.stringify([...project.locales].sort()) !== JSON.stringify(files)) {
    problems.push(`settings.json locales ${JSON.stringify(project.locales)} are not the catalogues ${JSON.stringify(files)}`);
  }
  const base = project.catalogues[project.baseLocale];
  if (base === undefined) return [...problems, `no catalogue of the base language ${project.baseLocale}`];
  for (const [locale, catalogue] of Object.entries(project.catalogues)) {
    const missing = Object.keys(base).filter((key) => !(key in catalogue));
    const extra = Object.keys(catalogue).filter((key) => !(key in base));
    if (missing.length > 0) problems.push(`${locale}.json lacks ${missing.join(', ')}`);
    if (extra.length > 0) problems.push(`${locale}.json has keys en.json does not: ${extra.join(', ')}`);
    for (const [key, message] of Object.entries(catalogue)) {
      const texts = textsOf(message);
      if (texts.length === 0 || texts.some((text) => typeof text !== 'string' || text.trim() === '')) problems.push(`${locale}.json ${key} is empty`);
      const english = base[key];
      if (english === undefined || locale === project.baseLocale) continue;
      const want = placeholdersOf(english);
      const have = placeholdersOf(message);
      if (JSON.stringify(want) !== JSON.stringify(have)) {
        problems.push(`${locale}.json ${key} has placeholders {${have.join('}, {')}}, en.json {${want.join('}, {')}}`);
      }
    }
  }
  return problems;
}

describe('the message catalogues', () => {
  it('have exactly the keys of en.json, each with its placeholders and not empty, and are the locales of the inlang project', async () => {
    const project = await readProject(WEB);
    expect(project.baseLocale).toBe('en');
    expect(Object.keys(project.catalogues)).toContain('ja');
    expect(problemsOf(project)).toEqual([]);
  });

  it('are the languages the server picks from and the nav’s switch offers', async () => {
    const project = await readProject(WEB);
    const { PAGE_LOCALES } = await import('../../src/http/web/page-language.js');
    const { LANGUAGES } = await import('../../web/src/lib/i18n.js');
    expect([...PAGE_LOCALES]).toEqual(project.locales);
    expect(Object.keys(LANGUAGES)).toEqual(project.locales);
  });

  it('name every kind of problem of a broken copy', async ({ onTestFinished }) => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'kura-catalogues-'));
    onTestFinished(() => rm(copy, { recursive: true, force: true }));
    await cp(path.join(WEB, 'messages'), path.join(copy, 'messages'), { recursive: true });
    await cp(path.join(WEB, 'project.inlang', 'settings.json'), path.join(copy, 'project.inlang', 'settings.json'));
    const readJson = async (file: string) => JSON.parse(await readFile(path.join(copy, file), 'utf8')) as Record<string, unknown>;
    const en = await readJson('messages/en.json');
    const ja = await readJson('messages/ja.json');
    // English gains a plural and a plain message with a placeholder; Japanese answers the plural
    // with a plain string (allowed) but drops the other's placeholder, lacks one key, has one of
    // its own and an empty one; a third catalogue is not in the project's locales
    en.test_total = [
      {
        declarations: ['input count', 'local countPlural = count: plural'],
        selectors: ['countPlural'],
        match: { 'countPlural=one': '{count} stream', 'countPlural=other': '{count} streams' },
      },
    ];
    en.test_began = 'began {seconds} into the broadcast';
    en.test_only_english = 'Only here';
    en.test_empty = 'Not empty in English';
    Object.assign(ja, { test_total: '{count} 件', test_began: '配信開始の後に始まりました', test_only_japanese: '日本語だけ', test_empty: ' ' });
    await writeFile(path.join(copy, 'messages/en.json'), JSON.stringify(en));
    await writeFile(path.join(copy, 'messages/ja.json'), JSON.stringify(ja));
    await writeFile(
      path.join(copy, 'messages/fr.json'),
      JSON.stringify({ ...en, test_total: [{ declarations: ['input count'], match: { '*': '{n} flux' } }] }),
    );
    const problems = problemsOf(await readProject(copy));
    expect(problems).toEqual([
      'settings.json locales ["en","ja"] are not the catalogues ["en","fr","ja"]',
      'fr.json test_total has placeholders {count}, {n}, en.json {count}',
      'ja.json lacks test_only_english',
      'ja.json has keys en.json does not: test_only_japanese',
      'ja.json test_began has placeholders {}, en.json {seconds}',
      'ja.json test_empty is empty',
    ]);
    // and a catalogue answering with a variant whose text is empty
    await writeFile(path.join(copy, 'messages/fr.json'), JSON.stringify({ ...en, test_total: [{ declarations: ['input count'], match: { '*': '' } }] }));
    expect(problemsOf(await readProject(copy)).filter((line) => line.startsWith('fr.json'))).toEqual(['fr.json test_total is empty']);
  });

  it('keep the order of the pieces the app cuts a sentence at: where two placeholders are MARK, every language has them in English’s order', async () => {
    const project = await readProject(WEB);
    // `m.key({ a: MARK, b: MARK }).split(MARK)` gives before, between and after: the app puts a's
    // piece of markup first whatever the language (web/src/lib/i18n.ts, MARK)
    const cut = new Map<string, string[]>();
    for (const file of await sourcesOf(path.join(WEB, 'src'))) {
      for (const call of (await readFile(file, 'utf8')).matchAll(/\bm\.(\w+)\(\{([^{}]*)\}\)/g)) {
        const marked = [...(call[2] ?? '').matchAll(/(\w+):\s*MARK\b/g)].map((found) => found[1] as string);
        if (marked.length >= 2) cut.set(call[1] as string, marked);
      }
    }
    expect(cut.size).toBeGreaterThanOrEqual(6);
    const wrong = [...cut].flatMap(([key, marked]) =>
      Object.entries(project.catalogues).flatMap(([language, catalogue]) =>
        textsOf(catalogue[key] ?? '')
          .map((text) => namesIn(text).filter((name) => marked.includes(name)))
          .filter((order) => order.join() !== marked.join())
          .map((order) => `${language}.json ${key}: {${order.join('}, {')}}, the app cuts it as {${marked.join('}, {')}}`),
      ),
    );
    expect(wrong).toEqual([]);
  });
});

/** The app's source files (TypeScript and Svelte), not the compiled catalogues. */
async function sourcesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|svelte)$/.test(entry.name) && !/paraglide/.test(entry.parentPath))
    .map((entry) => path.join(entry.parentPath, entry.name));
}
