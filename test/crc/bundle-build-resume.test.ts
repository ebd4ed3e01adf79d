import { afterAll, describe, expect, it } from '@jest/globals';
import type { CRCBundle } from '../../client/api/resources.js';
import { BUNDLES, INSTANCES } from '../../client/api/resources.js';
import { DATA_VOLUMES, VIRTUAL_MACHINES } from '../../operator/api/platform-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import { TEST_AGENT_IMAGE } from '../../dev/platform/simulated-platform.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { OperatorProcess } from '../support/runners/operator-process.js';
import { startOperatorProcess } from '../support/runners/operator-process.js';
import { useWorld } from '../support/world.js';
import {
  buildBundle,
  condition,
  createBuildInputs,
  playBuild,
  guestApiBesidePlayedBuilds,
} from '../support/fixtures/bundle-build-player.js';

// A control plane of the file's own: the operator process builds every CRCBundle it sees, and
// bundles are cluster-scoped. Its namespace is the operator's, enabled for the validation
// instance (run by an operator in the test's process, which reaches guest APIs through the
// platform's router).
const world = useWorld({
  namespace: 'build-resume',
  enabled: true,
  controlPlane: 'own',
  platform: {
    crc: { guestApi: guestApiBesidePlayedBuilds },
  },
});
const { ns } = world;

/** A step held until the test lets it go; `reached` once its Job's pod runs it. */
function hold(): { reached: Promise<void>; release: () => void; wait: () => Promise<void> } {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { reached, release, wait: () => (arrive(), released) };
}

describe('a bundle build and the operator killed in each stage group', () => {
  let operator: OperatorProcess | undefined;
  const start = async (identity: string): Promise<void> => {
    operator = await startOperatorProcess({
      identity,
      namespace: ns.name,
      args: ['--controllers=crcbundle'],
      env: { KUBECONFIG: world.controlPlane.kubeconfigPath, CRC_AGENT_IMAGE: TEST_AGENT_IMAGE },
    });
  };
  const kill = async (): Promise<void> => {
    operator!.child.kill('SIGKILL');
    expect((await operator!.exited).signal).toBe('SIGKILL');
  };
  afterAll(async () => {
    if (operator && operator.child.exitCode === null && operator.child.signalCode === null) {
      operator.child.kill('SIGKILL');
      await operator.exited;
    }
  });

  it('resumes the same attempt after each SIGKILL: one VM of each role, one of each disk, one validation instance, then Ready', async () => {
    const name = 'build-resume';
    // Every object's creations, by kind and name (ADDED events of watches started before).
    const added = new Map<string, number>();
    const watchers = new AbortController();
    const count = async (type: ResourceType): Promise<void> => {
      const { resourceVersion } = await ns.api.list(type, { namespace: ns.name });
      void ns.api
        .watch<KubeObject>(
          type,
          { namespace: ns.name, resourceVersion },
          (event) => {
            if (event.type !== 'ADDED') return;
            const key = `${type.kind}/${event.object.metadata!.name}`;
            added.set(key, (added.get(key) ?? 0) + 1);
          },
          watchers.signal,
        )
        .catch(() => undefined);
    };
    for (const type of [VIRTUAL_MACHINES, DATA_VOLUMES, INSTANCES]) await count(type);

    await createBuildInputs(ns.api, ns.name);
    await world.startOperator({
      controllers: ['clusterinstance'],
      config: { operatorNamespace: ns.name },
    });
    const holds = {
      resolve: hold(),
      'install-wait': hold(),
      poweroff: hold(),
      'seal-check': hold(),
    };
    let powerOffs = 0;
    playBuild(world.platform, ns.api, ns.name, name, {
      resolve: holds.resolve.wait,
      'install-wait': holds['install-wait'].wait,
      // The first poweroff, P7 ReturnToPresent's: the operator dies while the guest goes down for the present.
      poweroff: () => (powerOffs++ === 0 ? holds.poweroff.wait() : Promise.resolve()),
      'seal-check': holds['seal-check'].wait,
    });
    await start('op-1');
    await ns.api.create(BUNDLES, buildBundle(name));
    let attempt = '';
    let restarts = 0;
    try {
      for (const [step, held] of Object.entries(holds)) {
        await held.reached;
        const now = await ns.api.get<CRCBundle>(BUNDLES, name);
        attempt ||= now.status!.build!.attempt!;
        expect({ step, attempt: now.status!.build!.attempt }).toEqual({ step, attempt });
        await kill();
        await start(`op-${++restarts + 1}`);
        held.release();
      }
      // The validation group: killed while the validation instance comes up.
      await waitFor<CRCBundle>(ns.kubeConfig, {
        type: BUNDLES,
        name,
        until: (b) => b?.status?.build?.stage === 'Validate',
        description: 'the build validating',
      });
      await kill();
      await start(`op-${++restarts + 1}`);
      const done = await waitFor<CRCBundle>(ns.kubeConfig, {
        type: BUNDLES,
        name,
        until: (b) => ['Ready', 'Failed'].includes(b?.status?.phase ?? ''),
        description: 'the build done',
        timeoutMs: 120_000,
      });
      expect(condition(done, 'Ready')).toMatchObject({ status: 'True', reason: 'BundleReady' });
      expect(done!.status!.build!.attempt).toBe(attempt);
    } finally {
      watchers.abort();
    }
    expect(restarts).toBe(5);
    // Each object made once, whatever the restarts.
    expect(Object.fromEntries([...added].sort())).toEqual({
      [`ClusterInstance/${name}-${attempt}-validate`]: 1,
      [`DataVolume/${name}-${attempt}-rootdisk`]: 1,
      // The validation instance's clone of the golden disk, and its VM.
      [`DataVolume/${name}-${attempt}-validate-rootdisk`]: 1,
      [`DataVolume/${name}-golden`]: 1,
      [`VirtualMachine/${name}-${attempt}-crc`]: 1,
      [`VirtualMachine/${name}-${attempt}-installer`]: 1,
      [`VirtualMachine/${name}-${attempt}-validate`]: 1,
    });
    // Deleted, the bundle goes once the build's finalizer has run.
    await ns.api.delete(BUNDLES, name);
    await waitFor(ns.kubeConfig, { type: BUNDLES, name, until: (b) => b === undefined });
  });
});
