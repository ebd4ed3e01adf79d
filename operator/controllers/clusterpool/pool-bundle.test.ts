import { describe, expect, it } from '@jest/globals';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES } from '../../../client/api/resources.js';
import { createLogger } from '../../runtime/logger.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import { ensureBundle } from './pool-bundle.js';
import type { Pool } from './pool-conditions.js';

const context = { logger: createLogger('error') };
const pool = {
  metadata: { name: 'pool', namespace: 'tenant' },
  spec: { type: 'crc', template: {} },
} as unknown as Pool;

describe('ensureBundle', () => {
  it("gives the bundle it creates the labels of the operator's scope, so that this operator prepares it", async () => {
    const ports = fakePorts();
    await ensureBundle(
      ports,
      pool,
      { version: '4.19.0', scope: { labels: { team: 'a' } } },
      context,
    );
    const bundle = ports.api.peek<CRCBundle>(BUNDLES, 'crc-4.19.0-amd64');
    expect(bundle?.metadata?.labels).toEqual({ team: 'a' });
    expect(bundle?.spec).toMatchObject({ version: '4.19.0', arch: 'amd64' });
  });

  it('creates it without labels when the operator has no scope', async () => {
    const ports = fakePorts();
    await ensureBundle(ports, pool, { version: '4.19.0' }, context);
    expect(
      ports.api.peek<CRCBundle>(BUNDLES, 'crc-4.19.0-amd64')?.metadata?.labels,
    ).toBeUndefined();
  });
});
