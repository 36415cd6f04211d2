// How the configuration reads its variables, for src/config/config.ts and its slices: a value
// that does not parse is reported to `problems` and its default used, so every problem is told at once.

/** Readers of an environment map's variables (a blank one is unset). */
export interface EnvReaders {
  read(name: string): string | undefined;
  integer(name: string, fallback: number, min: number, max: number): number;
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T;
  decimal(name: string, fallback: number, min: number, max: number): number;
}

export function envReaders(env: Record<string, string | undefined>, problems: string[]): EnvReaders {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };

  const decimal = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  return { read, integer, oneOf, decimal };
}
