const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** The longest ClusterLease spec.ttl, 8760h (365 days): the CRD refuses longer ones. */
export const MAX_LEASE_TTL_MS = 8760 * 3_600_000;

/** Parses a Go duration ("2h", "1h30m", "90m", "1.5h", "0") into milliseconds; undefined if invalid. */
export function parseGoDuration(value: string): number | undefined {
  if (value === '0') return 0;
  const parts = [...value.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) return undefined;
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNIT_MS[unit!]!, 0);
}

/** A duration as Go prints one (15m0s, 1h30m0s, 45s), as messages that name settings say it. */
export function formatGoDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  if (h) return `${h}h${m}m${s}s`;
  return m ? `${m}m${s}s` : `${s}s`;
}
