import { findCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../../client/api/resources.js';

/**
 * One lease as `--output json` shows it: a stable shape of our own (docs/reference/cli.md), not
 * the ClusterLease object, so scripts keep working as the API grows. Absent values are null.
 */
export interface LeaseSummary {
  name: string;
  namespace: string;
  phase: string;
  pool: string;
  instance: string | null;
  queuePosition: number | null;
  ttl: string | null;
  expiresAt: string | null;
  requestedBy: string | null;
  topology: string | null;
  ocpVersion: string | null;
  apiEndpoint: string | null;
  reason: string | null;
  message: string | null;
}

export function leaseSummary(lease: ClusterLease): LeaseSummary {
  const status = lease.status ?? {};
  return {
    name: lease.metadata!.name!,
    namespace: lease.metadata!.namespace!,
    phase: status.phase ?? 'Pending',
    pool: lease.spec.poolRef.name,
    ttl: lease.spec.ttl ?? null,
    requestedBy: lease.spec.requestedBy ?? null,
    ...statusFields(status),
  };
}

type StatusFields = Omit<
  LeaseSummary,
  'name' | 'namespace' | 'phase' | 'pool' | 'ttl' | 'requestedBy'
>;

function statusFields(status: NonNullable<ClusterLease['status']>): StatusFields {
  const ready = findCondition(status.conditions, 'Ready');
  const fields: { [K in keyof StatusFields]: StatusFields[K] | undefined } = {
    instance: status.instanceRef?.name,
    queuePosition: status.queuePosition,
    expiresAt: status.expiresAt,
    topology: status.topology,
    ocpVersion: status.ocpVersion,
    apiEndpoint: status.apiEndpoint,
    reason: ready?.reason,
    message: ready?.message,
  };
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, value ?? null]),
  ) as StatusFields;
}

const COLUMNS: [string, (lease: LeaseSummary) => string][] = [
  ['NAME', (l) => l.name],
  ['PHASE', (l) => l.phase],
  ['POOL', (l) => l.pool],
  ['INSTANCE', (l) => l.instance ?? ''],
  ['QUEUE', (l) => (l.queuePosition === null ? '' : String(l.queuePosition))],
  ['EXPIRES', (l) => l.expiresAt ?? ''],
  ['REQUESTED BY', (l) => l.requestedBy ?? ''],
];

/** A table like kubectl's: columns padded to their widest cell, three spaces apart. */
export function leaseTable(leases: LeaseSummary[]): string {
  const rows = [
    COLUMNS.map(([title]) => title),
    ...leases.map((l) => COLUMNS.map(([, cell]) => cell(l))),
  ];
  const widths = COLUMNS.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}
