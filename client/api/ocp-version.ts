/**
 * OpenShift versions as leases ask for them and instances report them: a minor such as "4.19"
 * stands for every 4.19.z (pre-releases such as 4.19.0-rc.1 included), an exact version such as
 * "4.19.7" for itself alone.
 */
export function versionMatches(wanted: string, actual: string): boolean {
  return actual === wanted || actual.startsWith(`${wanted}.`);
}

/** Whether some version matches both: neither is set, or one stands for the other. */
export function versionsOverlap(a: string | undefined, b: string | undefined): boolean {
  return !a || !b || versionMatches(a, b) || versionMatches(b, a);
}

/** The minor of a version, "4.19" of "4.19.7"; undefined when it has none. */
export function minorOf(version: string): string | undefined {
  return /^(\d+\.\d+)(?:[.-]|$)/.exec(version)?.[1];
}

/** Whether `wanted` names a minor ("4.19") rather than an exact version. */
export function isMinor(wanted: string): boolean {
  return /^\d+\.\d+$/.test(wanted);
}
