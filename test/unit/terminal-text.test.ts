import { describe, expect, it } from 'vitest';
import { escapeControls, row, shown } from '../../src/cli/terminal-text.js';

describe('what the CLI prints', () => {
  it('writes ESC, BEL, CR, C1 controls and bidirectional overrides as visible escapes', () => {
    expect(escapeControls('a\u001b[31mred\u0007\rb\u009bc\u202ed\u2066e')).toBe('a\\u001b[31mred\\u0007\\rb\\u009bc\\u202ed\\u2066e');
    expect(escapeControls('歌枠 🎤 Karaoke — ok')).toBe('歌枠 🎤 Karaoke — ok');
  });

  it('escapes the values of a line, not its own text', () => {
    expect(shown`kura: ${'id\nforged line'} is ${'paused'}\n`).toBe('kura: id\\nforged line is paused\n');
  });

  it('keeps the columns of a listing: a tab or newline inside a value is escaped', () => {
    expect(row(['id', 'Name\twith tab', 'two\nlines'])).toBe('id\tName\\twith tab\ttwo\\nlines');
  });
});
