import type { ClusterInstance } from '../../operator/api/resources.js';

export { createPullSecret } from '../support/pull-secret.js';

export const readyCondition = (
  instance: ClusterInstance | undefined,
): { status: string; reason: string; message: string } | undefined =>
  instance?.status?.conditions?.find((c) => c.type === 'Ready');
