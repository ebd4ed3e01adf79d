/**
 * The expected digest of `fileName` in a `sha256sum` listing (`<hex>  <name>`, or `<hex> *<name>`
 * in binary mode; one space is accepted too). Names match exactly (a leading `./` is ignored), not as patterns. Undefined
 * when the listing has no line for the file.
 */
export function expectedDigest(listing: string, fileName: string): string | undefined {
  for (const line of listing.split(/\r?\n/)) {
    const match = /^\\?([0-9a-fA-F]{64})\s+\*?(.+)$/.exec(line.trim());
    if (!match) continue;
    const name = match[2]!.trim().replace(/^\.\//, '');
    if (name === fileName) return match[1]!.toLowerCase();
  }
  return undefined;
}

/** Thrown when the download's digest is not the published one. */
export class ChecksumMismatchError extends Error {
  override name = 'ChecksumMismatchError';
  constructor(
    readonly fileName: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`checksum mismatch for ${fileName}: expected sha256 ${expected}, got ${actual}`);
  }
}

export function verifyDigest(fileName: string, expected: string, actual: string): void {
  if (expected.toLowerCase() !== actual.toLowerCase())
    throw new ChecksumMismatchError(fileName, expected.toLowerCase(), actual.toLowerCase());
}
