import type { KubeObject } from '../kube/objects.js';
import { DIAGNOSTICS_BOUNDS, truncated } from './diagnostics-bounds.js';
import type { ConditionFacts, EventFacts, ObjectFacts } from './diagnostics-facts.js';
import { redact } from './redact.js';

/** An object as its status shows it; the spec is never read. */
export interface StatusObject extends KubeObject {
  status?: Record<string, unknown> & { phase?: unknown; conditions?: unknown };
}

export interface CoreEvent extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  involvedObject?: { kind?: string; name?: string; uid?: string };
}

/** A scalar as text; anything else (an object where a string belongs) as JSON. */
const scalarText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : value === undefined || value === null
        ? ''
        : JSON.stringify(value);

/** Text from the cluster, redacted and cut to the field bound. */
export const cleanText = (
  value: unknown,
  maxBytes: number = DIAGNOSTICS_BOUNDS.textBytes,
): string => truncated(redact(scalarText(value)), maxBytes);

export function conditionFacts(conditions: unknown): ConditionFacts[] {
  if (!Array.isArray(conditions)) return [];
  return conditions
    .filter((c): c is Record<string, unknown> => !!c && typeof c === 'object')
    .map((c) => ({
      type: cleanText(c.type, 256),
      status: cleanText(c.status, 32),
      ...(c.reason ? { reason: cleanText(c.reason, 256) } : {}),
      ...(c.message ? { message: cleanText(c.message) } : {}),
      ...(c.lastTransitionTime ? { lastTransitionTime: cleanText(c.lastTransitionTime, 64) } : {}),
    }));
}

function scalarStatus(status: Record<string, unknown>): ObjectFacts['status'] {
  const fields: ObjectFacts['status'] = {};
  for (const [key, value] of Object.entries(status)) {
    if (key === 'phase' || key === 'conditions') continue;
    if (typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
    else if (typeof value === 'string') fields[key] = cleanText(value, 512);
  }
  return fields;
}

const eventTime = (event: CoreEvent): string =>
  event.series?.lastObservedTime ??
  event.lastTimestamp ??
  event.eventTime ??
  event.metadata?.creationTimestamp ??
  '';

/** The newest Events first, at most `limit`. */
export function eventFacts(
  events: readonly CoreEvent[],
  limit: number,
  named = false,
): EventFacts[] {
  return [...events]
    .sort((a, b) => eventTime(b).localeCompare(eventTime(a)))
    .slice(0, limit)
    .map((event) => ({
      type: cleanText(event.type ?? 'Normal', 32),
      reason: cleanText(event.reason ?? '', 256),
      message: cleanText(event.message ?? ''),
      count: event.series?.count ?? event.count ?? 1,
      ...(eventTime(event) ? { lastSeen: eventTime(event) } : {}),
      ...(named && event.involvedObject
        ? { object: `${event.involvedObject.kind ?? ''}/${event.involvedObject.name ?? ''}` }
        : {}),
    }));
}

export function objectFacts(
  kind: string,
  object: StatusObject,
  events: readonly CoreEvent[],
): ObjectFacts {
  const status = object.status ?? {};
  return {
    kind,
    name: object.metadata?.name ?? '',
    ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    ...(object.metadata?.uid ? { uid: object.metadata.uid } : {}),
    ...(typeof status.phase === 'string' ? { phase: cleanText(status.phase, 64) } : {}),
    status: scalarStatus(status),
    conditions: conditionFacts(status.conditions),
    events: eventFacts(events, DIAGNOSTICS_BOUNDS.eventsPerObject),
  };
}

/** An object that could not be described, and why. */
export function missingFacts(
  kind: string,
  name: string,
  namespace: string | undefined,
  note: string,
): ObjectFacts {
  return {
    kind,
    name,
    ...(namespace ? { namespace } : {}),
    status: {},
    conditions: [],
    events: [],
    note: cleanText(note, 512),
  };
}
