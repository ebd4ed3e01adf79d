import { describe, expect, it } from '@jest/globals';
import type { CRCBundle } from '../../../client/api/resources.js';
import type { StoredCluster } from '../../kube/objects.js';
import { bundleUrls } from './bundle-urls.js';
import { buildPrepJob } from './prep-job.js';

const MIRROR = 'https://mirror.openshift.com/pub/openshift-v4/clients/crc/bundles/openshift';

function bundle(
  spec: Partial<CRCBundle['spec']> = {},
  name = 'crc-4.16.0-amd64',
): StoredCluster<CRCBundle> {
  return {
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'CRCBundle',
    metadata: { name, uid: 'uid-1', resourceVersion: '1' },
    spec: { version: '4.16.0', ...spec },
  };
}

const settings = {
  namespace: 'ops',
  image: 'registry.example/crc-agent:1',
  mirrorUrl: MIRROR,
};

describe('bundle URLs', () => {
  it.each<[string, Partial<CRCBundle['spec']>, string, string]>([
    [
      'the published libvirt bundle by default',
      {},
      `${MIRROR}/4.16.0/crc_libvirt_4.16.0_amd64.crcbundle`,
      `${MIRROR}/4.16.0/sha256sum.txt`,
    ],
    [
      'the arch in the file name',
      { arch: 'arm64' },
      `${MIRROR}/4.16.0/crc_libvirt_4.16.0_arm64.crcbundle`,
      `${MIRROR}/4.16.0/sha256sum.txt`,
    ],
    [
      'the spec overrides',
      { bundleURL: 'http://m.example/b.crcbundle', sha256URL: 'http://m.example/sums' },
      'http://m.example/b.crcbundle',
      'http://m.example/sums',
    ],
  ])('%s', (_name, spec, bundleUrl, sha256Url) => {
    expect(bundleUrls(bundle(spec), MIRROR)).toEqual({ bundleUrl, sha256Url });
    expect(bundleUrls(bundle(spec), `${MIRROR}/`)).toEqual({ bundleUrl, sha256Url });
  });
});

describe('buildPrepJob', () => {
  it('builds the Job running the agent in bundle-prep mode', () => {
    expect(buildPrepJob(bundle(), settings)).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'crc-4.16.0-amd64-prep',
        namespace: 'ops',
        labels: {
          'opdev.io/managed-by': 'guestcluster-operator',
          'opdev.io/crc-bundle': 'crc-4.16.0-amd64',
        },
        ownerReferences: [
          {
            apiVersion: 'guestcluster.opdev.io/v1alpha1',
            kind: 'CRCBundle',
            name: 'crc-4.16.0-amd64',
            uid: 'uid-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        backoffLimit: 2,
        activeDeadlineSeconds: 7200,
        template: {
          metadata: {
            labels: {
              'opdev.io/managed-by': 'guestcluster-operator',
              'opdev.io/crc-bundle': 'crc-4.16.0-amd64',
            },
          },
          spec: {
            restartPolicy: 'Never',
            // Pod Security "restricted", which the operator namespace enforces.
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            // The bundle's own account (prep-access.ts).
            serviceAccountName: 'crc-4.16.0-amd64-prep',
            containers: [
              {
                name: 'bundle-prep',
                image: 'registry.example/crc-agent:1',
                securityContext: {
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'] },
                },
                args: ['bundle-prep'],
                env: [
                  {
                    name: 'BUNDLE_URL',
                    value: `${MIRROR}/4.16.0/crc_libvirt_4.16.0_amd64.crcbundle`,
                  },
                  { name: 'SHA256_URL', value: `${MIRROR}/4.16.0/sha256sum.txt` },
                  { name: 'NAMESPACE', value: 'ops' },
                  { name: 'BUNDLE_NAME', value: 'crc-4.16.0-amd64' },
                  { name: 'BUNDLE_UID', value: 'uid-1' },
                  { name: 'SSH_SECRET_NAME', value: 'crc-4.16.0-amd64-ssh-key' },
                  { name: 'METADATA_CONFIGMAP_NAME', value: 'crc-4.16.0-amd64-metadata' },
                  { name: 'GOLDEN_DIR', value: '/golden' },
                  { name: 'SCRATCH_DIR', value: '/work' },
                  { name: 'TERMINATION_MESSAGE_PATH', value: '/dev/termination-log' },
                ],
                volumeMounts: [
                  { name: 'golden', mountPath: '/golden' },
                  { name: 'scratch', mountPath: '/work' },
                ],
                terminationMessagePath: '/dev/termination-log',
                terminationMessagePolicy: 'FallbackToLogsOnError',
              },
            ],
            volumes: [
              { name: 'golden', persistentVolumeClaim: { claimName: 'crc-4.16.0-amd64-golden' } },
              { name: 'scratch', persistentVolumeClaim: { claimName: 'crc-4.16.0-amd64-scratch' } },
            ],
          },
        },
      },
    });
  });

  it('is deterministic', () => {
    expect(buildPrepJob(bundle(), settings)).toEqual(buildPrepJob(bundle(), settings));
  });
});
