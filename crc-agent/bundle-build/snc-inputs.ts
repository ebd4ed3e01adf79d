import { stringify } from 'yaml';
import { BUILD_NODE } from '../../contracts/bundle-build.js';
import type { TarFile } from './tar-streams.js';

/**
 * The installer inputs snc keeps as files next to snc.sh (install-config.yaml,
 * cvo-overrides.yaml, the network manifest, the MachineConfigs, the live ignition's chronyd
 * mask), written here as data, with the build's additions
 * (docs/adr/0032-bundle-build-guest-side.md#what-the-build-adds-to-snc). The pull secret is not among
 * them: it reaches the installer VM on stdin only.
 */

const CAPABILITIES = [
  'openshift-samples',
  'marketplace',
  'Console',
  'MachineAPI',
  'ImageRegistry',
  'DeploymentConfig',
  'Build',
  'OperatorLifecycleManager',
  'Ingress',
];

/** snc's install-config.yaml without `pullSecret`, which the guest script appends last. */
export function installConfig(arch: string, sshPublicKey: string): string {
  const cpu = arch === 'arm64' ? 'arm64' : 'amd64';
  return stringify({
    apiVersion: 'v1',
    baseDomain: 'testing',
    metadata: { name: 'crc' },
    compute: [{ name: 'worker', replicas: 0, architecture: cpu }],
    controlPlane: { name: 'master', replicas: 1, architecture: cpu },
    networking: {
      clusterNetwork: [{ cidr: '10.217.0.0/22', hostPrefix: 23 }],
      serviceNetwork: ['10.217.4.0/23'],
      machineNetwork: [{ cidr: '192.168.126.0/24' }],
    },
    platform: { none: {} },
    bootstrapInPlace: { installationDisk: '/dev/vda' },
    capabilities: { baselineCapabilitySet: 'None', additionalEnabledCapabilities: CAPABILITIES },
    publish: 'External',
    sshKey: sshPublicKey.trim(),
  });
}

/**
 * snc's cvo-overrides.yaml: the operators the CVO never creates, as the indented block appended
 * under `spec:`.
 */
export function cvoOverridesBlock(): string {
  const unmanaged = [
    ['cluster-monitoring-operator', 'openshift-monitoring', 'monitoring'],
    ['cloud-credential-operator', 'openshift-cloud-credential-operator', 'cloud-credential'],
    ['cluster-autoscaler-operator', 'openshift-machine-api', 'cluster-autoscaler'],
    [
      'cluster-cloud-controller-manager-operator',
      'openshift-cloud-controller-manager-operator',
      'cloud-controller-manager',
    ],
  ];
  const overrides = unmanaged.flatMap(([deployment, namespace, operator]) => [
    { kind: 'Deployment', group: 'apps', name: deployment, namespace, unmanaged: true },
    {
      kind: 'ClusterOperator',
      group: 'config.openshift.io',
      name: operator,
      namespace: '',
      unmanaged: true,
    },
  ]);
  const block = stringify({ overrides });
  return block
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
}

const dataUrl = (text: string): string => `data:;base64,${Buffer.from(text).toString('base64')}`;

/**
 * The dummy eth10 with the node IP: a MachineConfig of the installed node, as snc has it, and (an
 * addition) a unit of the live ignition.
 */
const DUMMY_NETWORK_UNIT = [
  '[Unit]',
  'Description=Dummy eth10 with the node IP (etcd and the kubelet bind to it)',
  'Wants=NetworkManager.service',
  'After=NetworkManager.service',
  'Before=kubelet.service',
  '[Service]',
  'Type=oneshot',
  'RemainAfterExit=yes',
  `ExecStart=/bin/sh -c 'nmcli -t -f NAME connection show | grep -qx internalEtcd || nmcli connection add type dummy ifname eth10 con-name internalEtcd autoconnect yes ipv4.method manual ipv4.addresses ${BUILD_NODE.internalIP}/24 ipv6.method disabled'`,
  `ExecStart=/usr/bin/nmcli connection up internalEtcd`,
  '[Install]',
  'WantedBy=multi-user.target',
  '',
].join('\n');

/** The node-IP hint (an addition): nodeip-configuration picks the machine network's address. */
const NODEIP_HINT = 'KUBELET_NODEIP_HINT=192.168.126.0\n';

function machineConfig(
  name: string,
  config: Record<string, unknown>,
  kernelArguments?: string[],
): string {
  return stringify({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'master' } },
    spec: {
      config: { ignition: { version: '3.2.0' }, ...config },
      ...(kernelArguments ? { kernelArguments } : {}),
    },
  });
}

/** snc's MachineConfigs and the node-IP hint: what goes into `openshift/`. */
export function sncMachineConfigs(): TarFile[] {
  const file = (path: string, text: string): Record<string, unknown> => ({
    path,
    mode: 420,
    overwrite: true,
    contents: { source: dataUrl(text) },
  });
  return [
    {
      name: 'openshift/99-master-chronyd-mask.yaml',
      content: machineConfig('chronyd-mask', {
        systemd: { units: [{ name: 'chronyd.service', mask: true }] },
      }),
    },
    {
      name: 'openshift/99-master-dummy-networks.yaml',
      content: machineConfig('99-master-dummy-networks', {
        systemd: {
          units: [
            {
              name: 'guestcluster-dummy-eth10.service',
              enabled: true,
              contents: DUMMY_NETWORK_UNIT,
            },
          ],
        },
      }),
    },
    {
      name: 'openshift/99-master-console.yaml',
      content: machineConfig('99-master-console', {}, ['console=hvc0', 'console=ttyS0']),
    },
    {
      name: 'openshift/99-node-sizing-for-crc.yaml',
      content: machineConfig('99-node-sizing-for-crc', {
        storage: {
          files: [
            file(
              '/etc/node-sizing-enabled.env',
              'NODE_SIZING_ENABLED=false\nSYSTEM_RESERVED_MEMORY=350Mi\nSYSTEM_RESERVED_CPU=200m\nSYSTEM_RESERVED_ES=350Mi\n',
            ),
          ],
        },
      }),
    },
    {
      name: 'openshift/99-master-nodeip-hint.yaml',
      content: machineConfig('99-master-nodeip-hint', {
        storage: { files: [file('/etc/default/nodeip-configuration', NODEIP_HINT)] },
      }),
    },
  ];
}

/**
 * An addition (docs/adr/0032-bundle-build-guest-side.md#what-the-build-adds-to-snc): OVN-Kubernetes
 * with MTU 1400 instead of snc's stale SDN file.
 */
export function networkManifest(): TarFile {
  return {
    name: 'manifests/cluster-network-03-config.yml',
    content: stringify({
      apiVersion: 'operator.openshift.io/v1',
      kind: 'Network',
      metadata: { name: 'cluster' },
      spec: { defaultNetwork: { type: 'OVNKubernetes', ovnKubernetesConfig: { mtu: 1400 } } },
    }),
  };
}

/**
 * What the guest script merges into the live ignition: snc's chronyd mask, the node-IP hint and
 * the dummy eth10.
 */
export function liveAdditions(): string {
  return JSON.stringify({
    systemd: {
      units: [
        { name: 'chronyd.service', mask: true },
        { name: 'guestcluster-dummy-eth10.service', enabled: true, contents: DUMMY_NETWORK_UNIT },
      ],
    },
    storage: {
      files: [
        {
          path: '/etc/default/nodeip-configuration',
          mode: 420,
          overwrite: true,
          contents: { source: dataUrl(NODEIP_HINT) },
        },
      ],
    },
  });
}

/** Where an installation manifest goes: MachineConfigs into `openshift/`, the rest `manifests/`. */
export function manifestFolder(content: string): 'openshift' | 'manifests' {
  return /^kind:\s*MachineConfig\s*$/m.test(content) ? 'openshift' : 'manifests';
}
