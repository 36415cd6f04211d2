import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** The app a TypeBox route plugin is handed, for the functions that register a group of its routes. */
export type TypeboxApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** A route plugin that registers its groups of routes on the app it is handed, in this order. */
export function routeGroups<Deps>(deps: Deps, ...groups: Array<(app: TypeboxApp, deps: Deps) => void>): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const group of groups) group(app, deps);
  };
}
