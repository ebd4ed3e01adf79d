import { ApiException } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, describe, expect, test } from '@jest/globals';
import { useWorld } from '../support/world.js';
import type { RunSetup } from '../support/runners/agent-run.js';
import {
  createRunningVmi,
  prepareRun,
  runAgentProcess,
  setVmiStatus,
} from '../support/runners/agent-run.js';
import { coreApi, objectsApi } from '../support/client-node-clients.js';

const { ns } = useWorld({ namespace: 'crc-fence' });
let setup: RunSetup | undefined;

afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

const vmiRef = (
  name: string,
): KubernetesObject & { metadata: { name: string; namespace: string } } => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name, namespace: ns.name },
});

/**
 * Runs the agent; when it starts the kubelet, `change` alters the VMI and the guest holds the
 * command until the agent gives up on it (it closes the SSH connection once fenced).
 */
async function runWithVmiChange(
  name: string,
  change: () => Promise<void>,
): Promise<{ exitCode: number | null; output: string }> {
  let changed: Promise<void> | undefined;
  setup = await prepareRun(ns, name, {
    beforeCommand: (command) => {
      if (command !== 'sudo systemctl start kubelet') return Promise.resolve();
      changed = change();
      return new Promise<void>(() => undefined);
    },
  });
  const run = await runAgentProcess(setup.env);
  await changed;
  return run;
}

async function expectNoHandoff(name: string, vmiUid: string): Promise<void> {
  const read = coreApi(ns).readNamespacedSecret({
    namespace: ns.name,
    name: `${name}-crc-raw-kubeconfig-${vmiUid}`,
  });
  await expect(read).rejects.toBeInstanceOf(ApiException);
  await expect(read).rejects.toMatchObject({ code: 404 });
}

describe('crc-agent VMI fencing', () => {
  test('exits 0 without publishing when the VMI is deleted mid-run', async () => {
    const run = await runWithVmiChange('fence-deleted', async () => {
      await objectsApi(ns).delete(vmiRef('fence-deleted'));
    });
    expect(run.output).toContain('ending agent run');
    expect(run.output).toContain('was deleted');
    expect(run.exitCode).toBe(0);
    await expectNoHandoff('fence-deleted', setup!.vmiUid);
  });

  test('exits 0 without publishing when the VMI is no longer Running', async () => {
    const run = await runWithVmiChange('fence-failed', () =>
      setVmiStatus(ns.name, 'fence-failed', { phase: 'Failed' }),
    );
    expect(run.output).toContain('is not running (phase Failed)');
    expect(run.output).toContain('ending agent run');
    expect(run.exitCode).toBe(0);
    await expectNoHandoff('fence-failed', setup!.vmiUid);
  });

  test('exits 0 without publishing when the VMI is replaced by a new one', async () => {
    let newUid = '';
    const run = await runWithVmiChange('fence-replaced', async () => {
      await objectsApi(ns).delete(vmiRef('fence-replaced'));
      newUid = await createRunningVmi(objectsApi(ns), ns.name, 'fence-replaced');
    });
    expect(run.output).toContain('ending agent run');
    expect(run.exitCode).toBe(0);
    expect(newUid).not.toBe(setup!.vmiUid);
    await expectNoHandoff('fence-replaced', setup!.vmiUid);
    await expectNoHandoff('fence-replaced', newUid);
  });

  test('exits 1 when the VMI is not the current one at start-up', async () => {
    setup = await prepareRun(ns, 'fence-startup');
    const run = await runAgentProcess({ ...setup.env, CRC_VMI_UID: 'a-different-uid' });
    expect(run.output).toContain('start-up VMI check failed');
    expect(run.output).toContain('UID changed from a-different-uid');
    expect(run.exitCode).toBe(1);
    expect(setup.guest.machine.commands).toEqual([]);
  });
});
