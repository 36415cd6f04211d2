// Decisions: docs/decisions/0062-web-ui-svelte-vite.md
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { isListed } from '../../core/channels/channel.js';
import { parseTime } from '../../core/time-text.js';
import { CHANNEL_ID_MAX_LENGTH } from '../../core/vocabulary.js';
import { LIVESTREAM_ID_PATTERN } from '../../core/vocabulary.js';
import { presentChannel } from '../channels/channel.presenter.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { archiveHead, channelHead, escapeHtml, HEAD_PLACEHOLDER } from './open-graph.js';
import { PAGE_LOCALES, pageLocale, type PageLocale } from './page-language.js';
import { loadPageMessages, type PageText } from './page-messages.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import type { ChannelRepo } from '../../core/channels/ports.js';

/** The pages of the UI; each answers the app's index.html, whose router shows the page. */
export const CLIENT_ROUTES = ['/', '/queue', '/history', '/channels', '/follows', '/follows/:id', '/stats', '/login', '/tokens', '/webhooks'] as const;

const defaultHead = (text: PageText) =>
  `<title>${escapeHtml(text('page_default_title'))}</title>\n<meta name="description" content="${escapeHtml(text('page_default_description'))}">`;

/** The instance's feeds, named in the page's language, on every page. */
const feedLinks = (text: PageText) =>
  [
    ['/feeds/archives.atom', text('page_feed_archives')],
    ['/feeds/queue.atom', text('page_feed_queue')],
  ]
    .map(([href, title]) => `\n<link rel="alternate" type="application/atom+xml" title="${escapeHtml(title as string)}" href="${href}">`)
    .join('');

/** Tells the app whether this instance is private before it asks anything (it shows a stranger the login page only). */
const modeMeta = (publicRead: boolean) => `\n<meta name="kura-public-read" content="${publicRead}">`;
const ArchiveParamsSchema = Type.Object({ id: Type.String() });
// any value: a `t` that is no time (or given twice) is ignored, as the page ignores it, never a 400
const ArchiveQuerySchema = Type.Object({ t: Type.Optional(Type.Unknown({ description: 'a moment of the recording the link opens the player at' })) });
const ChannelPageParamsSchema = Type.Object({ channelId: Type.String() });

/** A link's `t` as seconds of the recording, or null when it is no time or past the end of the recording. */
function linkTime(t: unknown, lengthSeconds: number | undefined): number | null {
  const seconds = typeof t === 'string' ? parseTime(t) : null;
  return seconds !== null && (lengthSeconds === undefined || seconds < lengthSeconds) ? seconds : null;
}

/** The app's index.html in each language the UI speaks: `<html lang>`, and a head of its words. */
export interface WebPages {
  /** The page with `head` (of the language's words) in its head; without one, the head of a page that names nothing in particular. */
  page(locale: PageLocale, head?: (text: PageText) => string): string;
}

/**
 * The built UI (one build per language, `index.{locale}.html`: scripts/build-web.mjs) and its
 * message catalogues (dist/web/messages); null when the UI was not built.
 */
export function loadWebPages(dir: string, publicRead: boolean): WebPages | null {
  if (!PAGE_LOCALES.every((locale) => existsSync(path.join(dir, `index.${locale}.html`)))) return null;
  const templates = new Map(PAGE_LOCALES.map((locale) => [locale, readFileSync(path.join(dir, `index.${locale}.html`), 'utf8')]));
  const textOf = loadPageMessages(path.join(dir, 'messages'));
  const build = (locale: PageLocale, head: (text: PageText) => string) =>
    (templates.get(locale) as string)
      .replace('<html lang="en">', `<html lang="${locale}">`)
      .replace(HEAD_PLACEHOLDER, () => head(textOf(locale)) + feedLinks(textOf(locale)) + modeMeta(publicRead));
  const defaults = new Map(PAGE_LOCALES.map((locale) => [locale, build(locale, defaultHead)]));
  return { page: (locale, head) => (head ? build(locale, head) : (defaults.get(locale) as string)) };
}

/** What the web UI's pages use: the built UI, and the records and channels their link previews describe. */
export interface WebRouteDeps {
  livestreams: LivestreamRepo;
  channels: ChannelRepo;
  publicUrl: string;
  /** False: a private instance, whose pages name no record or channel to a stranger (no link previews). */
  publicRead: boolean;
  /** Where Vite built the UI (dist/web). */
  dir: string;
  /** Its index.html in each language (loadWebPages). */
  pages: WebPages;
}

/**
 * The web UI built by Vite into `dir`: hashed assets under /assets (cached for a year, served
 * pre-compressed), and index.html (never cached) for every client route; an archive page's
 * index.html carries its Open Graph tags; every page is in the language the app will show.
 */
export function webRoutes(deps: WebRouteDeps): FastifyPluginAsyncTypebox {
  const { dir } = deps;
  return async (app) => {
    const { pages } = deps;
    // the page is in the language the app will pick (the cookie, else Accept-Language): caches keep one per language
    const page = (reply: FastifyReply, html: string, status = 200) =>
      reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('vary', 'accept-language, cookie').send(html);
    const validId = new RegExp(LIVESTREAM_ID_PATTERN);

    await app.register(fastifyStatic, {
      root: path.join(dir, 'assets'),
      prefix: '/assets/',
      preCompressed: true,
      decorateReply: false,
      index: false,
      // one route for every built file: a route per file would cost every start a router of
      // hundreds of routes (most of the time of an idle start's route building); an unknown asset
      // is still a problem JSON 404
      wildcard: true,
      cacheControl: false,
      setHeaders: (reply) => reply.header('cache-control', 'public, max-age=31536000, immutable'),
    });
    for (const url of CLIENT_ROUTES) {
      app.get(url, { schema: { hide: true } }, (request, reply) => page(reply, pages.page(pageLocale(request))));
    }
    app.get('/archive/:id', { schema: { hide: true, params: ArchiveParamsSchema, querystring: ArchiveQuerySchema } }, async (request, reply) => {
      const { id } = request.params;
      const locale = pageLocale(request);
      if (!deps.publicRead) return page(reply, pages.page(locale));
      const record = validId.test(id) ? await deps.livestreams.findById(id) : null;
      // an unknown id (or one being taken down) still gets the app, which says so; the status tells crawlers
      if (record === null || record.takedown !== null) return page(reply, pages.page(locale), 404);
      const pageUrl = `${deps.publicUrl}/archive/${encodeURIComponent(id)}`;
      const presented = presentRecord(record, deps.publicUrl, 'public');
      const at = linkTime(request.query.t, presented.length);
      return page(
        reply,
        pages.page(locale, (text) => archiveHead(presented, pageUrl, at, text)),
      );
    });
    app.get('/channel/:channelId', { schema: { hide: true, params: ChannelPageParamsSchema } }, async (request, reply) => {
      const { channelId } = request.params;
      const locale = pageLocale(request);
      if (!deps.publicRead) return page(reply, pages.page(locale));
      const channel = channelId.length <= CHANNEL_ID_MAX_LENGTH ? await deps.channels.find(channelId) : null;
      // like an unknown archive: the app says so, the status tells crawlers
      if (channel === null || !isListed(channel)) return page(reply, pages.page(locale), 404);
      const pageUrl = `${deps.publicUrl}/channel/${encodeURIComponent(channelId)}`;
      return page(
        reply,
        pages.page(locale, (text) => channelHead(presentChannel(channel), pageUrl, text)),
      );
    });
  };
}
