import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { publishRelease } from './release-catalog.js';

/** A release the stand-in offers, and whether the only edges to it carry a declared risk. */
export interface StandInRelease {
  version: string;
  /** Reachable only through a conditional edge with this risk (its name). */
  conditionalRisk?: string;
}

/** What a channel answers instead of its graph. */
export type ChannelFault = { status: number } | 'hang';

const GRAPH_PATH = '/api/upgrades_info/v1/graph';
const RELEASE_REPOSITORY = 'quay.io/openshift-release-dev/ocp-release';

/** The stand-in's digest of a release: the same for a version and arch every time. */
export function releaseDigest(version: string, arch: string): string {
  const digest = `sha256:${createHash('sha256').update(`${version}/${arch}`).digest('hex')}`;
  publishRelease(digest, version);
  return digest;
}

export const releaseImage = (version: string, arch: string): string =>
  `${RELEASE_REPOSITORY}@${releaseDigest(version, arch)}`;

/**
 * The graph of a channel as the OpenShift update service sends it (Cincinnati's JSON: nodes with
 * version, digest-pinned payload and metadata; edges as [from, to] node indexes; conditionalEdges
 * with their risks): each release updates to every newer one, unconditionally unless the newer
 * one is marked conditional, whose edges then all carry its risk.
 */
export function channelGraph(
  channel: string,
  arch: string,
  releases: readonly StandInRelease[],
): object {
  const nodes = releases.map(({ version }) => ({
    version,
    payload: releaseImage(version, arch),
    metadata: {
      'io.openshift.upgrades.graph.release.channels': channel,
      'io.openshift.upgrades.graph.release.manifestref': releaseDigest(version, arch),
      'release.openshift.io/architecture': arch,
      url: `https://access.redhat.com/errata/RHBA-${version}`,
    },
  }));
  const edges: [number, number][] = [];
  const conditionalEdges: object[] = [];
  releases.forEach((target, to) => {
    const from = releases.slice(0, to).map((source) => source.version);
    if (from.length === 0) return;
    if (!target.conditionalRisk) {
      for (let i = 0; i < to; i++) edges.push([i, to]);
      return;
    }
    conditionalEdges.push({
      edges: from.map((version) => ({ from: version, to: target.version })),
      risks: [
        {
          url: `https://issues.redhat.com/browse/${target.conditionalRisk}`,
          name: target.conditionalRisk,
          message: `Clusters updating to ${target.version} may be affected by ${target.conditionalRisk}.`,
          matchingRules: [{ type: 'PromQL', promql: { promql: 'group(cluster_version)' } }],
        },
      ],
    });
  });
  return { version: 1, nodes, edges, conditionalEdges };
}

/**
 * A local stand-in for the OpenShift update service (api.openshift.com's
 * /api/upgrades_info/v1/graph), plain HTTP on loopback: per channel and arch, the releases it
 * offers (a channel it does not know answers an empty graph, as the real service does), or a
 * fault (an HTTP status, or no answer at all). Every request is recorded.
 */
export class UpdateServiceStandIn {
  readonly requests: { channel: string; arch: string; accept: string }[] = [];
  private readonly channels = new Map<string, StandInRelease[]>();
  private readonly faults = new Map<string, ChannelFault>();
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<UpdateServiceStandIn> {
    const standIn: UpdateServiceStandIn = new UpdateServiceStandIn(
      http.createServer((req, res) => standIn.answer(req, res)),
    );
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  /** The base URL, as --update-service-url takes it. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The releases of a channel for an arch, oldest first (they are sorted by the client anyway). */
  offer(channel: string, arch: string, releases: StandInRelease[]): void {
    this.channels.set(`${channel}/${arch}`, releases);
  }

  /** Makes the channel fail (an HTTP status, or 'hang': no answer) until healed. */
  fail(channel: string, arch: string, fault: ChannelFault): void {
    this.faults.set(`${channel}/${arch}`, fault);
  }

  heal(channel: string, arch: string): void {
    this.faults.delete(`${channel}/${arch}`);
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const channel = url.searchParams.get('channel') ?? '';
    const arch = url.searchParams.get('arch') ?? 'amd64';
    if (url.pathname !== GRAPH_PATH) return void res.writeHead(404).end();
    this.requests.push({ channel, arch, accept: req.headers.accept ?? '' });
    const json = (status: number, body: object): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers.accept !== 'application/json')
      return json(406, { kind: 'invalid_content_type', value: 'Accept must be application/json' });
    if (!channel)
      return json(400, {
        kind: 'missing_params',
        value: 'mandatory client parameters missing: channel',
      });
    const fault = this.faults.get(`${channel}/${arch}`);
    if (fault === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (fault) return json(fault.status, { kind: 'upstream_unreachable', value: 'stand-in fault' });
    json(200, channelGraph(channel, arch, this.channels.get(`${channel}/${arch}`) ?? []));
  }
}
