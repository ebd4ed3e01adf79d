import { readFile } from 'node:fs/promises';

/** One write an operator made, as the apiserver's audit log recorded it. */
export interface AuditedWrite {
  username: string;
  verb: string;
  /** `resource` or `resource/subresource`, with the API group when it has one. */
  resource: string;
  namespace?: string;
  name?: string;
  /** When the apiserver received it (microseconds, as recorded). */
  received: string;
  code?: number;
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: {
    resource?: string;
    subresource?: string;
    apiGroup?: string;
    namespace?: string;
    name?: string;
  };
  requestReceivedTimestamp?: string;
  responseStatus?: { code?: number };
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

function resourceOf(ref: NonNullable<AuditEvent['objectRef']>): string {
  const resource = ref.apiGroup ? `${ref.resource}.${ref.apiGroup}` : (ref.resource ?? '');
  return ref.subresource ? `${resource}/${ref.subresource}` : resource;
}

/**
 * The writes (create, update, patch, delete) of the given users in the audit log, in the order
 * the apiserver received them. The log records the audited group's requests at Metadata level
 * (dev/control-plane/control-plane.ts), one JSON line each when the response completes.
 */
export async function auditedWrites(
  auditLog: string,
  usernames: readonly string[],
): Promise<AuditedWrite[]> {
  const writes: AuditedWrite[] = [];
  for (const line of (await readFile(auditLog, 'utf8')).split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as AuditEvent;
    const username = event.user?.username ?? '';
    if (event.stage !== 'ResponseComplete' || !usernames.includes(username)) continue;
    if (!WRITE_VERBS.has(event.verb ?? '') || !event.objectRef) continue;
    writes.push({
      username,
      verb: event.verb!,
      resource: resourceOf(event.objectRef),
      namespace: event.objectRef.namespace,
      name: event.objectRef.name,
      received: event.requestReceivedTimestamp ?? '',
      code: event.responseStatus?.code,
    });
  }
  // RFC 3339 with a fixed number of fractional digits in UTC: ordered as strings.
  return writes.sort((a, b) => (a.received < b.received ? -1 : a.received > b.received ? 1 : 0));
}
