/**
 * Concurrent reconciles per controller (--workers; docs/reference/naming.md#manager). The busy
 * controllers get more: a thousand instances and their leases are reconciled by the instance and
 * lease controllers, while bundles, streams and policies are few. No reconcile waits on a guest or
 * a Job with a worker (docs/reference/naming.md#manager), so a worker is only ever
 * busy with API calls.
 */
export const DEFAULT_WORKERS: Readonly<Record<string, number>> = {
  clusterpool: 2,
  clusterlease: 4,
  clusterinstance: 8,
  guesthealth: 2,
  crcbundle: 1,
  cirun: 1,
  versionstream: 1,
  admissionpolicy: 1,
  ciaccesspolicy: 1,
};

/** What a controller runs that neither the flag nor the defaults name (the runtime's own tests). */
export const FALLBACK_WORKERS = 1;

export const MAX_WORKERS = 64;

/** Workers by controller name. */
export type WorkerCounts = Readonly<Record<string, number>>;

/** Every named controller with `count` workers. */
export function everyController(names: readonly string[], count: number): WorkerCounts {
  return Object.fromEntries(names.map((name) => [name, count]));
}

function count(text: string): number | undefined {
  const number = Number(text);
  return /^\d+$/.test(text) && number >= 1 && number <= MAX_WORKERS ? number : undefined;
}

/**
 * Reads --workers: `N` gives every controller N (the old form); `name=N,…` gives the named ones
 * N and keeps the default of the others. Every problem is pushed to `problems`, naming the flag
 * and the value given.
 */
export function parseWorkers(
  value: string | undefined,
  names: readonly string[],
  problems: string[],
): WorkerCounts {
  const defaults = Object.fromEntries(names.map((name) => [name, DEFAULT_WORKERS[name] ?? 1]));
  if (value === undefined) return defaults;
  const range = `an integer from 1 to ${MAX_WORKERS}`;
  if (!value.includes('=')) {
    const every = count(value.trim());
    if (every !== undefined) return everyController(names, every);
    problems.push(
      `--workers must be ${range} (got "${value}"), or name=N pairs such as clusterinstance=16,clusterlease=8`,
    );
    return defaults;
  }
  const given: Record<string, number> = {};
  for (const entry of value.split(',').map((part) => part.trim())) {
    const [name = '', text, ...rest] = entry.split('=').map((part) => part.trim());
    const problem = !names.includes(name)
      ? `names no controller ("${name}"; the controllers are ${names.join(', ')})`
      : name in given
        ? `names ${name} twice`
        : text === undefined || rest.length > 0 || count(text) === undefined
          ? `must give ${name} ${range} (${name}=N)`
          : undefined;
    if (problem) problems.push(`--workers ${problem} (got "${value}")`);
    else given[name] = count(text!)!;
  }
  return { ...defaults, ...given };
}
