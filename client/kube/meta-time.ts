/** A time as metav1.Time is written: RFC 3339 in UTC, whole seconds. */
export function metaTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A time as metav1.MicroTime is written (coordination Leases): six fractional digits. */
export function metaMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
