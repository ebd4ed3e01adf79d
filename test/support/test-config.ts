import type { OperatorConfig } from '../../operator/config.js';
import { loadOperatorConfig } from '../../operator/config.js';

/** The operator's configuration in the tests: endpoints on free ports, quiet, no leader election. */
export function testConfig(overrides: Partial<OperatorConfig> = {}): OperatorConfig {
  const base = loadOperatorConfig(
    {
      metricsBindAddress: '127.0.0.1:0',
      // Plain HTTP, so that tests read the figures without a token; test/operator/operator-metrics.test.ts serves them securely.
      metricsSecure: 'false',
      healthProbeBindAddress: '127.0.0.1:0',
      workers: '2',
    },
    { OPERATOR_NAMESPACE: 'default' },
    () => '',
  );
  return { ...base, ...overrides };
}
