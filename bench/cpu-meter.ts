// CPU spent in each method of an object (nested calls taken out of their caller), for the benchmarks.
import { readFileSync } from 'node:fs';
import { minus, type CpuSplit } from './proc-usage.js';

/** The CPU split of this process now, read synchronously (so a synchronous method stays one). */
function cpuNow(): CpuSplit {
  const ticks = (file: string, fields: number[]) => {
    const after = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return fields.reduce((sum, i) => sum + Number(after[i]), 0) / 100;
  };
  const own = ticks(`/proc/${process.pid}/stat`, [11, 12]);
  const main = ticks(`/proc/${process.pid}/task/${process.pid}/stat`, [11, 12]);
  return { main, threads: own - main, children: ticks(`/proc/${process.pid}/stat`, [13, 14]) };
}

/** CPU per port method, nested calls' time taken out of their caller's (finalize calls them one at a time). */
export class Meter {
  readonly totals = new Map<string, CpuSplit>();
  private readonly stack: CpuSplit[] = [];

  /** `target` with its methods measured (but `read` and `writeMedia`, called per piece of media). */
  wrap<T extends object>(name: string, target: T): T {
    return new Proxy(target, {
      get: (object, key, receiver) => {
        const value = Reflect.get(object, key, receiver) as unknown;
        if (typeof value !== 'function' || typeof key !== 'string' || key === 'read' || key === 'writeMedia') return value;
        return (...callArgs: unknown[]) => {
          const before = cpuNow();
          this.stack.push({ main: 0, threads: 0, children: 0 });
          const finish = () => {
            const nested = this.stack.pop() as CpuSplit;
            const spent = minus(cpuNow(), before);
            this.add(`${name}.${key}`, minus(spent, nested));
            const caller = this.stack.at(-1);
            if (caller !== undefined) Object.assign(caller, add(caller, spent));
          };
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(object, callArgs);
          } catch (error) {
            finish();
            throw error;
          }
          if (!(result instanceof Promise)) {
            finish();
            return result;
          }
          return result.then(
            (resolved: unknown) => {
              finish();
              return typeof resolved === 'object' && resolved !== null && 'complete' in resolved ? this.wrap('writer', resolved) : resolved;
            },
            (error: unknown) => {
              finish();
              throw error;
            },
          );
        };
      },
    });
  }

  private add(name: string, cpu: CpuSplit): void {
    this.totals.set(name, add(this.totals.get(name) ?? { main: 0, threads: 0, children: 0 }, cpu));
  }
}

const add = (a: CpuSplit, b: CpuSplit): CpuSplit => ({ main: a.main + b.main, threads: a.threads + b.threads, children: a.children + b.children });
