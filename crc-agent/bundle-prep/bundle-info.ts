import { readFile, stat } from 'node:fs/promises';
import { errorMessage } from '../errors.js';

/** crc-bundle-info.json is a few KB; anything far larger is not a bundle's metadata. */
const MAX_INFO_BYTES = 1024 * 1024;

/** `.clusterInfo.openshiftVersion` of crc-bundle-info.json; empty, `null` or absent is an error. */
export function parseOpenshiftVersion(text: string, fileName: string): string {
  let info: unknown;
  try {
    info = JSON.parse(text);
  } catch (error) {
    throw new Error(`${fileName} is not valid JSON: ${errorMessage(error)}`, { cause: error });
  }
  const version = (info as { clusterInfo?: { openshiftVersion?: unknown } } | null)?.clusterInfo
    ?.openshiftVersion;
  if (typeof version !== 'string' || !version.trim() || version.trim() === 'null')
    throw new Error(`${fileName} has no .clusterInfo.openshiftVersion`);
  return version.trim();
}

export async function readOpenshiftVersion(file: string, fileName: string): Promise<string> {
  const { size } = await stat(file);
  if (size > MAX_INFO_BYTES)
    throw new Error(`${fileName} is ${size} bytes, more than the ${MAX_INFO_BYTES} expected`);
  return parseOpenshiftVersion(await readFile(file, 'utf8'), fileName);
}
