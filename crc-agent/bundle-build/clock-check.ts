/**
 * The guest clock against real time plus the offset it should run at (docs/bundle-build.md#2-the-ignition-is-generated-in-the-past-p2, docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10):
 * undefined when it is within the tolerance, else what is wrong, in words.
 */
export function clockProblem(
  guestEpoch: number,
  realMs: number,
  offsetSeconds: number,
  toleranceSeconds: number,
): string | undefined {
  const expected = Math.floor(realMs / 1000) + offsetSeconds;
  const skew = guestEpoch - expected;
  if (Math.abs(skew) <= toleranceSeconds) return undefined;
  const actualOffset = guestEpoch - Math.floor(realMs / 1000);
  return `the guest clock reads ${new Date(guestEpoch * 1000).toISOString()}, ${actualOffset}s from real time, where ${offsetSeconds}s (±${toleranceSeconds}s) was expected`;
}

/** How far a shifted clock may be from real − D: the VM boots and installs in minutes. */
export const SHIFTED_CLOCK_TOLERANCE_SECONDS = 900;
/** The seal checklist (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10): within ±60 s of real time once back in the present. */
export const PRESENT_CLOCK_TOLERANCE_SECONDS = 60;
