import { describe, expect, it } from '@jest/globals';
import type { UpdateGraph } from './update-graph.js';
import { conditionalOnly, findRelease, newestInMinor, parseUpdateGraph } from './update-graph.js';

const digest = (n: number): string =>
  `quay.io/openshift-release-dev/ocp-release@sha256:${n.toString(16).padStart(64, '0')}`;
const node = (version: string, n: number) => ({
  version,
  payload: digest(n),
  metadata: {
    'io.openshift.upgrades.graph.release.channels': 'candidate-4.19,fast-4.19,stable-4.19',
    'io.openshift.upgrades.graph.release.manifestref': `sha256:${n.toString(16).padStart(64, '0')}`,
    url: 'https://access.redhat.com/errata/RHSA-2026:0001',
  },
});

/** The shape of stable-4.19: 4.18 releases that update into 4.19, and 4.19's own. */
const body = {
  version: 1,
  nodes: [
    node('4.18.20', 1),
    node('4.19.5', 2),
    node('4.19.6', 3),
    node('4.19.10', 4),
    node('4.19.9', 5),
  ],
  edges: [
    [0, 1],
    [1, 2],
    [0, 2],
    [2, 4],
  ],
  conditionalEdges: [
    {
      edges: [
        { from: '4.19.6', to: '4.19.10' },
        { from: '4.19.9', to: '4.19.10' },
        { from: '4.19.5', to: '4.19.9' },
      ],
      risks: [
        {
          url: 'https://issues.redhat.com/browse/OCPBUGS-1',
          name: 'AzureRegistryImageMigration',
          message: 'Clusters on Azure may lose their image registry.',
          matchingRules: [
            {
              type: 'PromQL',
              promql: { promql: 'group(cluster_infrastructure_provider{type="Azure"})' },
            },
          ],
        },
      ],
    },
  ],
};

const graph = (): UpdateGraph => {
  const parsed = parseUpdateGraph(body);
  if ('invalid' in parsed) throw new Error(parsed.invalid);
  return parsed;
};

describe('the update graph', () => {
  it('reads nodes, edges and conditional edges as the update service sends them', () => {
    const parsed = graph();
    expect(parsed.nodes).toHaveLength(5);
    expect(parsed.nodes[1]).toEqual(node('4.19.5', 2));
    expect(parsed.edges).toContainEqual([2, 4]);
    expect(parsed.conditionalEdges[0]!.risks[0]!.name).toBe('AzureRegistryImageMigration');
  });

  it('takes a graph without conditional edges (older responses) as having none', () => {
    const parsed = parseUpdateGraph({ nodes: [node('4.19.1', 1)], edges: [] });
    expect(parsed).toMatchObject({ conditionalEdges: [] });
  });

  it('refuses what is not a graph, saying so', () => {
    expect(parseUpdateGraph({ kind: 'error', value: 'no channel' })).toEqual({
      invalid: 'the response is not an update graph: it has no nodes list',
    });
    expect(parseUpdateGraph({ nodes: [{ version: '4.19.1' }] })).toEqual({
      invalid: 'the update graph has a node without a version or payload',
    });
  });

  it('counts a version as blocked only when every edge to it is conditional', () => {
    // 4.19.9 has a conditional edge from 4.19.5 but an unconditional one from 4.19.6.
    expect(conditionalOnly(graph())).toEqual(
      new Map([['4.19.10', ['AzureRegistryImageMigration']]]),
    );
  });

  it('picks the newest release of the minor by SemVer, passing over conditional-only ones', () => {
    expect(newestInMinor(graph(), '4.19')).toEqual({
      newest: { version: '4.19.9', releaseImage: digest(5) },
      skipped: [{ version: '4.19.10', risks: ['AzureRegistryImageMigration'] }],
    });
    expect(newestInMinor(graph(), '4.18').newest?.version).toBe('4.18.20');
    expect(newestInMinor(graph(), '4.20')).toEqual({ skipped: [] });
  });

  it('does not count a release that nothing updates to yet as blocked', () => {
    const parsed = parseUpdateGraph({ nodes: [node('4.20.0-rc.0', 9)], edges: [] });
    if ('invalid' in parsed) throw new Error(parsed.invalid);
    expect(newestInMinor(parsed, '4.20').newest?.version).toBe('4.20.0-rc.0');
  });

  it('uses only digest-pinned payloads', () => {
    const parsed = parseUpdateGraph({
      nodes: [
        { version: '4.19.2', payload: 'quay.io/openshift-release-dev/ocp-release:4.19.2-x86_64' },
        node('4.19.1', 1),
      ],
      edges: [],
    });
    if ('invalid' in parsed) throw new Error(parsed.invalid);
    expect(newestInMinor(parsed, '4.19').newest?.version).toBe('4.19.1');
    expect(findRelease(parsed, '4.19.2')).toBeUndefined();
    expect(findRelease(parsed, '4.19.1')).toEqual({ version: '4.19.1', releaseImage: digest(1) });
  });
});
