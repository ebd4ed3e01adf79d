import type { StandInRelease } from '../platform/update-service/update-service-stand-in.js';
import { UpdateServiceStandIn } from '../platform/update-service/update-service-stand-in.js';

/** The local VersionStream (dev/local/version-stream.yaml) and what the stand-in offers it. */
export const LOCAL_STREAM = {
  name: 'ocp-4.16',
  channel: 'stable-4.16',
  /** stable-4.16 as the update service shapes it: 4.15 releases that update in, and 4.16's own. */
  releases: [
    { version: '4.15.30' },
    { version: '4.16.0' },
    { version: '4.16.1' },
    { version: '4.16.2' },
    { version: '4.16.3' },
    // Offered only as a conditional update: the stream passes over it.
    { version: '4.16.4', conditionalRisk: 'LocalKnownIssue' },
  ] satisfies StandInRelease[],
  /** What it resolves to: the newest unconditional 4.16 release. */
  resolvedVersion: '4.16.3',
} as const;

/** The update-service stand-in of the local environment, offering the local stream's channel. */
export async function startLocalUpdateService(): Promise<UpdateServiceStandIn> {
  const service = await UpdateServiceStandIn.start();
  service.offer(LOCAL_STREAM.channel, 'amd64', [...LOCAL_STREAM.releases]);
  return service;
}
