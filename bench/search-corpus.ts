import { buildRecord, type HistoryRecordJson } from '../test/support/factories.js';
import { japaneseTitles } from '../test/support/japanese-titles.js';

// Titles from a few dozen words viewers search for (some very common, Zipf-like) and thousands of
// made-up ones, so one word matches anything from a handful to a fifth of the archive.
const COMMON = [
  'karaoke',
  'singing',
  'minecraft',
  'piano',
  'guitar',
  'acoustic',
  'night',
  'morning',
  'chill',
  'collab',
  'birthday',
  'anniversary',
  'concert',
  'cover',
  'original',
  'songs',
  'horror',
  'valorant',
  'pokemon',
  'cooking',
  'drawing',
  'asmr',
  'study',
  'retro',
  'speedrun',
  'marathon',
  'members',
  'premiere',
  'debut',
  'graduation',
  'festival',
  'summer',
  'halloween',
  'christmas',
  'café',
  'acoustique',
  'canción',
  'duet',
  'unplugged',
  'watchalong',
  'tournament',
  'endurance',
  'challenge',
  'zatsudan',
  'utawaku',
];
const SYLLABLES = ['ka', 'ra', 'o', 'ke', 'mi', 'na', 'to', 'shi', 'yu', 'ri', 'sa', 'ku', 'ne', 'ha', 'ru', 'po', 'li', 'ma', 'de', 'su', 'zen', 'tan'];

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/**
 * `count` records with titles and channel names as an archive of streams has them (deterministic):
 * one in three titles Japanese (test/support/japanese-titles.ts), as is one channel name in four.
 */
export function buildCorpus(count: number): HistoryRecordJson[] {
  const next = random(42);
  const pick = <T>(list: readonly T[], skew: number) => list[Math.floor(list.length * next() ** skew)] as T;
  const invented = Array.from({ length: 6000 }, (_, i) => {
    let word = '';
    for (let s = 0; s < 2 + (i % 3); s++) word += pick(SYLLABLES, 1);
    return `${word}${i % 7 === 0 ? '' : String.fromCharCode(97 + (i % 26))}`;
  });
  const japanese = japaneseTitles();
  const channels = Array.from({ length: 2000 }, (_, i) =>
    i % 4 === 1 ? japanese.channelName(i) : `${pick(invented, 1)} ${pick(['Ch.', 'Music', 'Games', 'Live', 'Radio'], 1)} ${i}`,
  );
  return Array.from({ length: count }, (_, n) => {
    const words = [pick(COMMON, 2.5), pick(invented, 2), pick(COMMON, 1.5), pick(invented, 1)];
    if (n % 3 === 0) words.push(pick(invented, 1.2));
    const channel = n % 2000;
    const title = n % 3 === 2 ? japanese.title(n) : words.join(' ');
    return buildRecord({ title, channelName: channels[channel] as string, channelId: `UC${String(channel).padStart(22, '0')}` }, n);
  });
}
