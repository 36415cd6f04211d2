// Decisions: docs/decisions/0069-cli-output-and-arguments.md
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * `parseArgs` for a command's arguments, where only the command's own `--options` are options:
 * every other argument is a positional whatever its first character (`-o` is one of them when an option has that short name), so an id or a name beginning
 * with "-" (`kura follow pause -Jx3…`) is taken as given; after `--`, everything is a positional.
 * A string option's value is passed as `--name=value`, so a value beginning with "-" is one too.
 */
export function parseCommandArgs<const T extends Options>(args: readonly string[], options: T) {
  const optionArgs: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    const [name, inlineValue] = arg.startsWith('--') ? splitOnce(arg.slice(2)) : [shortName(options, arg), undefined];
    const option = name === null ? undefined : options[name];
    if (option === undefined) positionals.push(arg);
    else if (option.type === 'boolean' || inlineValue !== undefined) optionArgs.push(arg);
    else if (i + 1 < args.length) optionArgs.push(`--${name}=${args[(i += 1)]}`);
    else throw new TypeError(`Option '--${name} <value>' argument missing`);
  }
  const config = { args: [...optionArgs, '--', ...positionals], options, allowPositionals: true, strict: true } as const;
  return parseArgs(config);
}

/** The option `-x` stands for, when `arg` is one's short form. */
function shortName(options: Options, arg: string): string | null {
  if (!/^-[A-Za-z]$/.test(arg)) return null;
  return Object.entries(options).find(([, option]) => option.short === arg.slice(1))?.[0] ?? null;
}

function splitOnce(text: string): [string, string | undefined] {
  const at = text.indexOf('=');
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
