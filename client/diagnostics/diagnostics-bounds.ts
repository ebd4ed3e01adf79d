/**
 * The size bounds of a diagnostics report (docs/diagnostics.md#bounds). Every part is cut to its
 * bound with a marker that says so; the whole report is then fitted to the total.
 */
export const DIAGNOSTICS_BOUNDS = {
  /** The JSON and the Markdown of one report together, on stdout or in a folder. */
  totalBytes: 1024 * 1024,
  /** What the operator stores in one ConfigMap (an object may hold at most 1 MiB). */
  storedBytes: 256 * 1024,
  /** One text field: a condition's or an Event's message, a termination message. */
  textBytes: 2048,
  /** The newest Events of one object. */
  eventsPerObject: 20,
  /** The tail of a crc-agent pod's log. */
  logLines: 200,
  logBytes: 64 * 1024,
  /** Pods of one Job, newest first; Jobs of one instance. */
  podsPerJob: 3,
  jobsPerInstance: 2,
  /** Guest ClusterOperators and nodes, and its newest Warning Events. */
  guestItems: 100,
  guestWarnings: 30,
  /** The instances a pool report lists. */
  instancesPerPool: 50,
} as const;

/** The marker a cut part ends with. */
export function truncated(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const kept = Buffer.from(text)
    .subarray(0, Math.max(0, maxBytes - 64))
    .toString('utf8');
  // A cut inside a multi-byte character leaves a replacement character: drop it.
  const clean = kept.replace(/\uFFFD+$/, '');
  return `${clean}\n…[truncated: ${bytes - Buffer.byteLength(clean)} more bytes]`;
}

/** The last bytes of a log, cut at a line start, with the marker first. */
export function tail(text: string, maxLines: number, maxBytes: number): string {
  let lines = text.split('\n');
  if (lines.at(-1) === '') lines = lines.slice(0, -1);
  const dropped = Math.max(0, lines.length - maxLines);
  let kept = lines.slice(dropped).join('\n');
  let cutBytes = 0;
  while (Buffer.byteLength(kept) > maxBytes) {
    const newline = kept.indexOf('\n');
    const cut = newline < 0 ? kept.length : newline + 1;
    cutBytes += Buffer.byteLength(kept.slice(0, cut));
    kept = kept.slice(cut);
  }
  if (dropped === 0 && cutBytes === 0) return kept;
  return `…[truncated: ${dropped} earlier lines${cutBytes ? ` and ${cutBytes} bytes` : ''}]\n${kept}`;
}
