import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** The app a TypeBox route plugin is handed, for the functions that register a group of its routes. */
export type TypeboxApp = Parameters<FastifyPluginAsyncTypebox>[0];
