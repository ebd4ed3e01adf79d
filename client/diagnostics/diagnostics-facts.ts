/**
 * What a diagnostics report holds (docs/diagnostics.md#reading-a-report): facts about objects,
 * never an object's spec or a Secret's data. The JSON file is this shape; the Markdown says the
 * same for people.
 */

export interface ConditionFacts {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface EventFacts {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastSeen?: string;
  /** The object it is about, when the list is not one object's. */
  object?: string;
}

export interface ObjectFacts {
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  phase?: string;
  /** The top-level scalar fields of its status (endpoint, version, names), phase and conditions aside. */
  status: Record<string, string | number | boolean>;
  conditions: ConditionFacts[];
  events: EventFacts[];
  /** Why it is not described: not found, not readable, or how the read failed. */
  note?: string;
}

export interface ContainerFacts {
  name: string;
  state: string;
  reason?: string;
  exitCode?: number;
  restarts?: number;
  /** The termination message: the last lines the kubelet kept of a failed container's log. */
  message?: string;
}

export interface PodFacts {
  name: string;
  phase?: string;
  containers: ContainerFacts[];
  /** The tail of its log, redacted. */
  log?: string;
  logNote?: string;
}

export interface JobFacts {
  job: ObjectFacts;
  pods: PodFacts[];
}

export interface ClusterOperatorFacts {
  name: string;
  versions: { name: string; version: string }[];
  conditions: ConditionFacts[];
}

export interface NodeFacts {
  name: string;
  ready: string;
  kubeletVersion?: string;
}

export interface GuestFacts {
  /** The endpoint from the instance status it was reached at (or tried). */
  endpoint?: string;
  reached: boolean;
  note?: string;
  clusterOperators: ClusterOperatorFacts[];
  nodes: NodeFacts[];
  warnings: EventFacts[];
}

export interface DiagnosticsTarget {
  kind: 'lease' | 'instance' | 'pool';
  name: string;
  namespace: string;
}

export interface Diagnostics {
  target: DiagnosticsTarget;
  collectedAt: string;
  /** The target first, then the objects it leads to. */
  objects: ObjectFacts[];
  jobs: JobFacts[];
  guest?: GuestFacts;
  /** Stored diagnostics bundles (ConfigMaps) of a pool or an instance. */
  bundles: string[];
  notes: string[];
  /** What was cut to fit the bounds. */
  truncated: string[];
}
