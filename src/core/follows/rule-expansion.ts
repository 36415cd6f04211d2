// Decisions: docs/decisions/0095-title-rules-compiled-once-and-bounded.md
/**
 * How long a title rule is once RE2 has written out its counted repetitions: RE2 compiles `x{2,5}`
 * as `xx(x(x(x)?)?)?`, so the time to compile a rule, and its program's size (which each match
 * walks), grow with this length, not with the rule's own (`.{1,1000}` repeated fifty times is 495
 * characters and a program of 110,000 instructions). Read from the text, without compiling it (the
 * cost this guards against): never less than the program's size but for the three instructions
 * every program has, nor more than twice it. A rule that does not parse gets a figure all the
 * same: the compile then refuses it cheaply.
 */
export function expandedLength(pattern: string): number {
  // one frame per open group: the alternatives it closed, the sequence being read, its last atom
  const frames = [{ closed: 0, sequence: 0, last: 0 }];
  const atom = (size: number) => {
    const frame = frames.at(-1)!;
    frame.sequence += size;
    frame.last = size;
  };
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === '\\') {
      i = afterEscape(pattern, i, atom);
    } else if (char === '[') {
      i = afterClass(pattern, i);
      atom(1);
    } else if (char === '(') {
      frames.push({ closed: 0, sequence: 0, last: 0 });
      i += 1;
    } else if (char === ')' && frames.length > 1) {
      const group = frames.pop()!;
      atom(group.closed + group.sequence + 2);
      i += 1;
    } else if (char === '|') {
      const frame = frames.at(-1)!;
      frame.closed += frame.sequence + 1;
      frame.sequence = 0;
      frame.last = 0;
      i += 1;
    } else {
      const repeat = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      const frame = frames.at(-1)!;
      if (repeat === null || frame.last === 0) {
        atom(1); // a literal, an operator (`*+?` add an instruction or two), or a brace that repeats nothing
        i += 1;
        continue;
      }
      const [, min, comma, max] = repeat;
      const copies = comma === undefined ? Number(min) : max === '' ? Number(min) + 1 : Number(max);
      const repeated = frame.last * Math.max(copies, 1) + copies;
      frame.sequence += repeated - frame.last;
      frame.last = repeated;
      i += repeat[0].length;
    }
  }
  return frames.reduce((sum, frame) => sum + frame.closed + frame.sequence, 0);
}

/** Past an escape (`\d`, `\pL`, `\p{Greek}`, `\x{263a}`, `\Q…\E`), counting its atoms. */
function afterEscape(pattern: string, at: number, atom: (size: number) => void): number {
  const kind = pattern[at + 1];
  if (kind === 'Q') {
    const end = pattern.indexOf('\\E', at + 2);
    const quoted = end === -1 ? pattern.length - at - 2 : end - at - 2;
    for (let n = 0; n < quoted; n++) atom(1);
    return end === -1 ? pattern.length : end + 2;
  }
  atom(1);
  if ((kind === 'p' || kind === 'P' || kind === 'x') && pattern[at + 2] === '{') {
    const end = pattern.indexOf('}', at + 3);
    return end === -1 ? pattern.length : end + 1;
  }
  return at + 2;
}

/** Past a character class (`[^]a-z\]]`, `[[:alpha:]]`): one instruction whatever it holds. */
function afterClass(pattern: string, at: number): number {
  let i = at + 1;
  if (pattern[i] === '^') i += 1;
  if (pattern[i] === ']') i += 1; // a `]` first is a literal
  while (i < pattern.length && pattern[i] !== ']') {
    if (pattern[i] === '\\') i += 2;
    else if (pattern.startsWith('[:', i)) {
      const end = pattern.indexOf(':]', i + 2);
      i = end === -1 ? i + 1 : end + 2;
    } else i += 1;
  }
  return i + 1;
}
