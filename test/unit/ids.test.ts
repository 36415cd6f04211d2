import { describe, expect, it } from 'vitest';
import { parseCommandArgs } from '../../src/cli/command-args.js';
import { mintId } from '../../src/core/ids.js';

describe('ids Kura mints', () => {
  it('never begin with "-" (100,000 minted), and are 12 base64url characters, all different', () => {
    const ids = Array.from({ length: 100_000 }, () => mintId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(ids.every((id) => /^[A-Za-z0-9_-]{12}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // the other 63 first characters all still come up: a redraw, not a narrower alphabet
    expect(new Set(ids.map((id) => id[0])).size).toBe(63);
  });
});

describe("the CLI's arguments", () => {
  const options = { channel: { type: 'string' }, all: { type: 'boolean' } } as const;

  it('take an id beginning with "-" as a positional, before or after options, with or without "--"', () => {
    expect(parseCommandArgs(['-Jx3abcdEFGH'], options).positionals).toEqual(['-Jx3abcdEFGH']);
    expect(parseCommandArgs(['--all', '--x-y_z'], options)).toMatchObject({ values: { all: true }, positionals: ['--x-y_z'] });
    expect(parseCommandArgs(['--', '-J', '--all'], options)).toMatchObject({ values: {}, positionals: ['-J', '--all'] });
  });

  it('take option values beginning with "-", given apart or with "="', () => {
    expect(parseCommandArgs(['URL', '--channel', '-dash-'], options)).toMatchObject({ values: { channel: '-dash-' }, positionals: ['URL'] });
    expect(parseCommandArgs(['--channel=-x', 'URL'], options)).toMatchObject({ values: { channel: '-x' }, positionals: ['URL'] });
  });

  it("still refuse a command's own option without its value", () => {
    expect(() => parseCommandArgs(['URL', '--channel'], options)).toThrow("Option '--channel <value>' argument missing");
  });
});
