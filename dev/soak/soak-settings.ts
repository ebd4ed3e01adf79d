import { randomInt } from 'node:crypto';

/** Issue #35: about 200 leases over 30 minutes; a shorter or longer run scales the count. */
const LEASES_PER_30_MINUTES = 200;
const DEFAULT_MINUTES = 30;
const MAX_MINUTES = 24 * 60;
const MAX_SEED = 2 ** 32 - 1;

export interface SoakSettings {
  /** How long leases keep arriving and faults keep coming (SOAK_MINUTES). */
  minutes: number;
  /** The seed of every random choice (SOAK_SEED); printed, so a run can be replayed. */
  seed: number;
  /** How many leases the run creates. */
  leases: number;
}

/** SOAK_MINUTES (default 30) and SOAK_SEED (default random); a bad value is an error naming it. */
export function soakSettings(env: NodeJS.ProcessEnv): SoakSettings {
  const minutesText = env.SOAK_MINUTES?.trim() || String(DEFAULT_MINUTES);
  const minutes = Number(minutesText);
  if (!/^\d+(\.\d+)?$/.test(minutesText) || !(minutes > 0) || minutes > MAX_MINUTES)
    throw new Error(
      `SOAK_MINUTES must be a number of minutes above 0 and at most ${MAX_MINUTES} (got "${minutesText}")`,
    );
  const seedText = env.SOAK_SEED?.trim();
  const seed = seedText ? Number(seedText) : randomInt(MAX_SEED);
  if (seedText && (!/^\d+$/.test(seedText) || seed > MAX_SEED))
    throw new Error(`SOAK_SEED must be a whole number from 0 to ${MAX_SEED} (got "${seedText}")`);
  const leases = Math.max(1, Math.round((LEASES_PER_30_MINUTES * minutes) / DEFAULT_MINUTES));
  return { minutes, seed, leases };
}
