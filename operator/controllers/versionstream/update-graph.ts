import { compareVersionText, inMinor } from './release-version.js';

/**
 * The OpenShift update service's graph (`GET /api/upgrades_info/v1/graph`, Cincinnati's
 * format): release nodes, unconditional update edges as pairs of node indexes, and conditional
 * edges with the risks that make them conditional.
 */
export interface UpdateGraph {
  nodes: GraphNode[];
  /** [from, to] indexes into nodes. */
  edges: [number, number][];
  conditionalEdges: ConditionalEdges[];
}

export interface GraphNode {
  version: string;
  /** The release image, pinned by digest. */
  payload: string;
  metadata: Record<string, string>;
}

export interface ConditionalEdges {
  edges: { from: string; to: string }[];
  risks: { name?: string; url?: string; message?: string }[];
}

/** A release the stream can use: its version and digest-pinned release image. */
export interface Release {
  version: string;
  releaseImage: string;
}

const DIGEST_PINNED = /^[a-z0-9][^@\s]*@sha256:[0-9a-f]{64}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The graph in a response body, or what is wrong with it. */
export function parseUpdateGraph(body: unknown): UpdateGraph | { invalid: string } {
  if (!isRecord(body) || !Array.isArray(body.nodes))
    return { invalid: 'the response is not an update graph: it has no nodes list' };
  const nodes: GraphNode[] = [];
  for (const node of body.nodes) {
    if (!isRecord(node) || typeof node.version !== 'string' || typeof node.payload !== 'string')
      return { invalid: 'the update graph has a node without a version or payload' };
    const metadata = isRecord(node.metadata) ? node.metadata : {};
    nodes.push({
      version: node.version,
      payload: node.payload,
      metadata: Object.fromEntries(
        Object.entries(metadata).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        ),
      ),
    });
  }
  const edges = (Array.isArray(body.edges) ? body.edges : []).filter(
    (edge): edge is [number, number] =>
      Array.isArray(edge) && edge.length === 2 && edge.every((i) => Number.isInteger(i)),
  );
  const conditionalEdges = (Array.isArray(body.conditionalEdges) ? body.conditionalEdges : [])
    .filter(isRecord)
    .map((entry) => ({
      edges: (Array.isArray(entry.edges) ? entry.edges : [])
        .filter(isRecord)
        .filter((e) => typeof e.from === 'string' && typeof e.to === 'string')
        .map((e) => ({ from: e.from as string, to: e.to as string })),
      risks: (Array.isArray(entry.risks) ? entry.risks : []).filter(isRecord).map((risk) => ({
        name: typeof risk.name === 'string' ? risk.name : undefined,
        url: typeof risk.url === 'string' ? risk.url : undefined,
        message: typeof risk.message === 'string' ? risk.message : undefined,
      })),
    }));
  return { nodes, edges, conditionalEdges };
}

/**
 * The versions the graph offers only behind a declared risk: some conditional edge leads to
 * them and no unconditional edge does (ADR 0029). Each maps to the names of those risks.
 */
export function conditionalOnly(graph: UpdateGraph): Map<string, string[]> {
  const unconditional = new Set(
    graph.edges.map(([, to]) => graph.nodes[to]?.version).filter((v) => v !== undefined),
  );
  const blocked = new Map<string, string[]>();
  for (const { edges, risks } of graph.conditionalEdges)
    for (const { to } of edges) {
      if (unconditional.has(to)) continue;
      const names = risks.map((risk) => risk.name ?? 'unnamed risk');
      blocked.set(to, [...new Set([...(blocked.get(to) ?? []), ...names])]);
    }
  return blocked;
}

/** What the graph offers for a minor: the newest usable release, and what was passed over. */
export interface MinorOffer {
  newest?: Release;
  /** Newer versions skipped because they are reachable only through conditional edges. */
  skipped: { version: string; risks: string[] }[];
}

/** The newest release of `minor` by SemVer that is not a conditional-risk blocker. */
export function newestInMinor(graph: UpdateGraph, minor: string): MinorOffer {
  const blocked = conditionalOnly(graph);
  const usable = graph.nodes
    .filter((node) => inMinor(node.version, minor) && DIGEST_PINNED.test(node.payload))
    .sort((a, b) => compareVersionText(b.version, a.version));
  const skipped: MinorOffer['skipped'] = [];
  for (const node of usable) {
    const risks = blocked.get(node.version);
    if (!risks) return { newest: { version: node.version, releaseImage: node.payload }, skipped };
    skipped.push({ version: node.version, risks });
  }
  return { skipped };
}

/** The release of exactly `version` in the graph, if it has one with a digest-pinned payload. */
export function findRelease(graph: UpdateGraph, version: string): Release | undefined {
  const node = graph.nodes.find((n) => n.version === version);
  return node && DIGEST_PINNED.test(node.payload)
    ? { version: node.version, releaseImage: node.payload }
    : undefined;
}
