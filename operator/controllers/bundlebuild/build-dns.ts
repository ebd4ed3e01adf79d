import { CONFIG_MAPS, SERVICES } from '../../../client/api/core-resources.js';
import { DEPLOYMENTS } from '../../api/platform-resources.js';
import type { Desired } from '../../kube/objects.js';
import type { ConfigMap } from '../../kube/workloads.js';
import { RESTRICTED_CONTAINER_SECURITY, RESTRICTED_POD_SECURITY } from '../../kube/workloads.js';
import type { PlatformObject } from '../clusterinstance/core/platform-object.js';
import { BUILD_NODE } from '../../../contracts/bundle-build.js';
import type { Bundle } from './build-meta.js';
import { buildLabels, buildMeta } from './build-meta.js';
import type { BuildNames } from './build-names.js';

/** CoreDNS for the build guest (docs/bundle-build.md#build-dns). */
export const BUILD_DNS_IMAGE = 'registry.k8s.io/coredns/coredns:v1.11.3';
/** Unprivileged: the restricted pod security profile cannot bind port 53; the Service maps it. */
const DNS_PORT = 5353;
const ROLE = 'guestcluster.opdev.io/bundle-build-dns';

/**
 * The zones snc's libvirt network served: api, api-int and crc in crc.testing at the node IP
 * (anything else there is NXDOMAIN), every name in apps-crc.testing at the same IP, and the rest
 * forwarded to the node's resolvers.
 */
export function corefile(): string {
  const ip = BUILD_NODE.internalIP;
  return [
    `crc.testing:${DNS_PORT} {`,
    '    hosts {',
    `        ${ip} api.crc.testing api-int.crc.testing crc.crc.testing`,
    '    }',
    '}',
    `apps-crc.testing:${DNS_PORT} {`,
    '    template IN A apps-crc.testing {',
    `        answer "{{ .Name }} 60 IN A ${ip}"`,
    '    }',
    '}',
    `.:${DNS_PORT} {`,
    '    forward . /etc/resolv.conf',
    '    cache 30',
    '}',
    '',
  ].join('\n');
}

export function buildDnsConfigMap(
  bundle: Bundle,
  attempt: string,
  namespace: string,
  names: BuildNames,
): Desired<ConfigMap> {
  return {
    apiVersion: 'v1',
    kind: CONFIG_MAPS.kind,
    metadata: buildMeta(bundle, attempt, namespace, names.dns),
    data: { Corefile: corefile() },
  };
}

/** The DNS pods: dnsPolicy Default, so they forward to the node's resolvers (no search list). */
export function buildDnsDeployment(
  bundle: Bundle,
  attempt: string,
  namespace: string,
  names: BuildNames,
): Desired<PlatformObject> {
  const labels = { ...buildLabels(bundle, attempt), [ROLE]: names.dns };
  const build = bundle.spec.build;
  return {
    apiVersion: DEPLOYMENTS.apiVersion,
    kind: DEPLOYMENTS.kind,
    metadata: buildMeta(bundle, attempt, namespace, names.dns),
    spec: {
      replicas: 1,
      selector: { matchLabels: { [ROLE]: names.dns } },
      template: {
        metadata: { labels },
        spec: {
          dnsPolicy: 'Default',
          automountServiceAccountToken: false,
          securityContext: RESTRICTED_POD_SECURITY,
          ...(build?.nodeSelector ? { nodeSelector: { ...build.nodeSelector } } : {}),
          ...(build?.tolerations ? { tolerations: build.tolerations } : {}),
          containers: [
            {
              name: 'coredns',
              image: BUILD_DNS_IMAGE,
              args: ['-conf', '/etc/coredns/Corefile'],
              securityContext: RESTRICTED_CONTAINER_SECURITY,
              ports: [
                { name: 'dns', containerPort: DNS_PORT, protocol: 'UDP' },
                { name: 'dns-tcp', containerPort: DNS_PORT, protocol: 'TCP' },
              ],
              volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
            },
          ],
          volumes: [{ name: 'config', configMap: { name: names.dns } }],
        },
      },
    },
  };
}

export function buildDnsService(
  bundle: Bundle,
  attempt: string,
  namespace: string,
  names: BuildNames,
): Desired<PlatformObject> {
  return {
    apiVersion: SERVICES.apiVersion,
    kind: SERVICES.kind,
    metadata: buildMeta(bundle, attempt, namespace, names.dns),
    spec: {
      type: 'ClusterIP',
      selector: { [ROLE]: names.dns },
      ports: [
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: DNS_PORT },
        { name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: DNS_PORT },
      ],
    },
  };
}
