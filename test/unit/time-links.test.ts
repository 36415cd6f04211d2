import { describe, expect, it } from 'vitest';
import * as server from '../../src/core/time-text.js';
import * as web from '../../web/src/lib/time-links.js';

// The page reads a link's ?t= and writes "copy link at this time" with its own copy of the server's
// time forms (it may not load server code): the two must agree, or a link the page makes would
// preview at another moment than it plays.
const WRITTEN = ['3723', '3723.5', '1:02:03', '62:03', '2:03', '1h02m03s', '1h', '2m', '45s', '0', '1:60', '1:60:00', '', 'abc', '-5', '1h2', '1.2.3', ' 75 '];

describe('times in links, as the page and the server read them', () => {
  it('reads every form the same way on both sides, an invalid one as null', () => {
    for (const text of WRITTEN) expect(web.parseTime(text), JSON.stringify(text)).toBe(server.parseTime(text));
    expect(web.parseTime('1h02m03s')).toBe(3723);
    expect(web.parseTime('1:60')).toBeNull();
  });

  it('writes a position as the same link time, which reads back as its whole seconds', () => {
    for (const seconds of [0, 0.9, 45, 75.4, 123, 3599.99, 3723, 86_399]) {
      const written = web.linkTimeOf(seconds);
      expect(written).toBe(server.linkTimeOf(seconds));
      expect(web.parseTime(written)).toBe(Math.floor(seconds));
    }
    expect(web.linkTimeOf(3723.9)).toBe('1h02m03s');
  });

  it('writes a moment’s time as the same clock as the chapter lines, which reads back as its whole seconds', () => {
    for (const seconds of [0, 0.9, 45, 75.4, 123, 3599.99, 3723, 86_399]) {
      const written = web.clockOf(seconds);
      expect(written).toBe(server.clockOf(seconds));
      expect(web.parseTime(written)).toBe(Math.floor(seconds));
    }
    expect(web.clockOf(3723.9)).toBe('1:02:03');
  });

  it('writes a clip’s positions to the tenth of a second', () => {
    expect([75, 75.04, 134.96, 0.05].map(web.clipSeconds)).toEqual(['75', '75', '135', '0.1']);
  });
});
