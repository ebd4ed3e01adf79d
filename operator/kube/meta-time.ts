/** A time as metav1.Time is written: RFC 3339 in UTC, whole seconds. */
export function metaTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
