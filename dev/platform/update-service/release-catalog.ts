/**
 * What the simulated registry knows of release images pinned by digest. HyperShift learns a
 * release's version from the image's own metadata (it pulls the payload); a digest-only pullspec
 * has no tag to read it from, so the stand-ins that mint release digests (the update service's)
 * publish each release's version here, and the simulated HostedCluster and NodePool controllers
 * look it up. One catalog per process: every environment's stand-ins mint the same digest for a
 * version and arch, so entries never disagree.
 */
const versionsByDigest = new Map<string, string>();

export function publishRelease(digest: string, version: string): void {
  versionsByDigest.set(digest, version);
}

/** The version of a release image: its published digest's, else its tag's x.y.z, else empty. */
export function releaseVersion(image: string | undefined): string {
  const digest = /@(sha256:[0-9a-f]{64})$/.exec(image ?? '')?.[1];
  const published = digest ? versionsByDigest.get(digest) : undefined;
  return published ?? /:(\d+\.\d+\.\d+)/.exec(image ?? '')?.[1] ?? '';
}
