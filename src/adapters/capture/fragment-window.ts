import type { FragmentFormat } from '../../core/sources/ports.js';
import { FetchError, type Fetcher } from '../sources/http-fetch.js';
import { fragmentUrl } from './fragment-urls.js';

/**
 * The first fragment of `format` from `low` to `head` a source serves, starting from a `guess` (YouTube's 120
 * hours): older ones answer 404, newer ones do not. The guess and the one before it are asked
 * first (two requests when it is right); else the boundary is found by halving, a few dozen
 * requests at most for five days of fragments.
 */
export async function firstServed(
  fetcher: Fetcher,
  format: FragmentFormat,
  { low, guess, head }: { low: number; guess: number; head: number },
): Promise<number> {
  const served = async (n: number) => {
    try {
      await fetcher.withHeaders(fragmentUrl(format, n), { method: 'HEAD', maxBytes: 0 });
      return true;
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      return error.status !== 404; // anything but "not kept" says nothing of the window: taken as kept
    }
  };
  const atGuess = await served(guess);
  if (atGuess && !(await served(guess - 1))) return guess;
  // the boundary lies after notKept, at kept at the latest
  let [notKept, kept] = atGuess ? [low - 1, guess] : [guess, head];
  while (kept - notKept > 1) {
    const middle = Math.floor((notKept + kept) / 2);
    if (await served(middle)) kept = middle;
    else notKept = middle;
  }
  return kept;
}
