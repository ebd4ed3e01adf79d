import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import {
  agentAccountName,
  agentBindingName,
  agentHandoffBindingName,
  agentHandoffRoleName,
  agentJobName,
  crcBundleName,
  crcDiskName,
  crcVmName,
  handoffSecretName,
} from './crc-naming.js';

const VMI = '0d8e9bb6-6c1f-4f59-9a0e-3b1c2c1b8a11';
const long60 = 'a'.repeat(60);
// 40 characters cut from here end in "-." (trimmed for accounts, kept for Jobs).
const dotted = `${'b'.repeat(38)}-.${'x'.repeat(20)}`;

const instance = (
  template: Partial<ClusterInstance['spec']['template']>,
  crc?: NonNullable<ClusterInstance['status']>['crc'],
): Stored<ClusterInstance> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { name: 'pool-0', namespace: 'ci', uid: 'uid-1', resourceVersion: '1' },
  spec: { type: 'crc', template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4, ...template } },
  ...(crc ? { status: { crc } } : {}),
});

describe('crc naming', () => {
  it.each([
    ['pool-0', VMI, 'pool-0-crc-agent-6ab9768711a3'],
    [long60, VMI, `${'a'.repeat(40)}-crc-agent-6ab9768711a3`],
    [dotted, VMI, `${'b'.repeat(38)}-.-crc-agent-6ab9768711a3`],
  ])('names the agent Job of instance %s and a VMI by the VMI UID digest', (name, uid, job) => {
    expect(agentJobName(name, uid)).toBe(job);
    expect(job.length).toBeLessThanOrEqual(63);
  });

  it('gives every VMI its own Job', () => {
    expect(agentJobName('pool-0', 'vmi-a')).not.toBe(agentJobName('pool-0', 'vmi-b'));
  });

  it.each([
    [agentAccountName, 'pool-0', 'pool-0-crc-agent-6c6afab7c2cf'],
    [agentBindingName, 'pool-0', 'pool-0-crc-agent-binding-6c6afab7c2cf'],
    [agentHandoffRoleName, 'pool-0', 'pool-0-crc-agent-handoff-6c6afab7c2cf'],
    [agentHandoffBindingName, 'pool-0', 'pool-0-crc-agent-handoff-binding-6c6afab7c2cf'],
    [agentAccountName, long60, `${'a'.repeat(40)}-crc-agent-11ee391211c6`],
    [agentBindingName, long60, `${'a'.repeat(32)}-crc-agent-binding-11ee391211c6`],
    [agentHandoffRoleName, long60, `${'a'.repeat(32)}-crc-agent-handoff-11ee391211c6`],
    [agentHandoffBindingName, long60, `${'a'.repeat(24)}-crc-agent-handoff-binding-11ee391211c6`],
  ])('names per-instance agent RBAC (%p, %s) with the instance digest', (fn, name, expected) => {
    expect(fn(name)).toBe(expected);
    expect(expected.length).toBeLessThanOrEqual(63);
  });

  it('trims trailing - and . from a cut account prefix', () => {
    const name = agentAccountName(dotted);
    expect(name.startsWith(`${'b'.repeat(38)}-crc-agent-`)).toBe(true);
    expect(name.length).toBeLessThanOrEqual(63);
  });

  it('names the handoff Secret by the full VMI UID', () => {
    expect(handoffSecretName('pool-0', VMI)).toBe(`pool-0-crc-raw-kubeconfig-${VMI}`);
  });

  it('uses recorded VM and disk names, else the defaults', () => {
    expect(crcVmName(instance({}))).toBe('pool-0');
    expect(crcDiskName(instance({}))).toBe('pool-0-rootdisk');
    const recorded = instance({}, { vmName: 'vm-x', dataVolumeName: 'disk-x' });
    expect(crcVmName(recorded)).toBe('vm-x');
    expect(crcDiskName(recorded)).toBe('disk-x');
  });

  it.each([
    [{ crcVersion: '4.16.0' }, 'crc-4.16.0-amd64'],
    [{ crcVersion: '4.16.0', crcArch: 'arm64' as const }, 'crc-4.16.0-arm64'],
    [{ crcBundleRef: { name: 'built' } }, 'built'],
    [{ releaseImage: 'https://x/crc.qcow2' }, undefined],
  ])('names the bundle of template %j', (template, bundle) => {
    expect(crcBundleName(instance(template))).toBe(bundle);
  });
});
