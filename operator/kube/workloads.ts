import type { KubeObject } from './objects.js';

/**
 * The fields of core and batch objects that our controllers and the simulated platform read and
 * write, as plain JSON (see objects.ts). Only what is used is typed.
 */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string; apiVersion?: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
}

export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  secret?: { secretName: string; defaultMode?: number; items?: { key: string; path: string }[] };
}

export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  restartPolicy?: string;
  serviceAccountName?: string;
  nodeName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
}

/**
 * Pod Security "restricted", as the pods of our Jobs run: the operator namespace enforces it, and
 * a tenant namespace may. No user or group IDs: the images run as a non-root user, and OpenShift
 * assigns the namespace's own.
 */
export const RESTRICTED_POD_SECURITY: NonNullable<PodSpec['securityContext']> = {
  runAsNonRoot: true,
  seccompProfile: { type: 'RuntimeDefault' },
};
export const RESTRICTED_CONTAINER_SECURITY: NonNullable<Container['securityContext']> = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};

export interface ContainerState {
  running?: { startedAt?: string };
  terminated?: {
    exitCode: number;
    reason?: string;
    message?: string;
    startedAt?: string;
    finishedAt?: string;
  };
  waiting?: { reason?: string; message?: string };
}

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  ready: boolean;
  restartCount: number;
  started?: boolean;
  state?: ContainerState;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: {
    phase?: string;
    startTime?: string;
    containerStatuses?: ContainerStatus[];
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  };
}

export interface JobCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

export interface Job extends KubeObject {
  spec: {
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    completions?: number;
    parallelism?: number;
    selector?: { matchLabels?: Record<string, string> };
    template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
  };
  status?: {
    active?: number;
    ready?: number;
    succeeded?: number;
    failed?: number;
    /** Pods being deleted that have not ended yet. */
    terminating?: number;
    startTime?: string;
    completionTime?: string;
    conditions?: JobCondition[];
  };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec: {
    accessModes?: string[];
    resources?: { requests?: Record<string, string> };
    storageClassName?: string;
    volumeName?: string;
  };
  status?: { phase?: string; accessModes?: string[]; capacity?: Record<string, string> };
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}
