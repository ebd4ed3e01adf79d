import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { errorMessage } from '../errors.js';

export interface Downloaded {
  bytes: number;
  /** Lowercase hex SHA-256 of the bytes written. */
  sha256: string;
}

export interface DownloadOptions {
  signal: AbortSignal;
  /** Called after every `progressEvery` bytes with the bytes so far and the announced length. */
  onProgress?: (bytes: number, total: number | undefined) => void;
  progressEvery?: number;
}

/** A URL for logs and messages: no user info, query or fragment (they may carry tokens). */
export function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** The message of a failed fetch, with the underlying network error that undici puts in `cause`. */
function fetchFailure(url: string, error: unknown): Error {
  const cause = error instanceof Error && error.cause ? `: ${errorMessage(error.cause)}` : '';
  return new Error(`GET ${displayUrl(url)} failed: ${errorMessage(error)}${cause}`, {
    cause: error,
  });
}

/**
 * Streams `url` (redirects followed) into `file`, hashing on the way, so a bundle of many GB never
 * sits in memory. An HTTP error status fails without writing the body.
 */
export async function download(
  url: string,
  file: string,
  options: DownloadOptions,
): Promise<Downloaded> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'follow', signal: options.signal });
  } catch (error) {
    throw fetchFailure(url, error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new Error(
      `GET ${displayUrl(url)} answered ${response.status} ${response.statusText}`.trim(),
    );
  }
  const lengthHeader = response.headers.get('content-length');
  const total = lengthHeader ? Number(lengthHeader) : undefined;
  const every = options.progressEvery ?? 1024 ** 3;
  const hash = createHash('sha256');
  let bytes = 0;
  let nextReport = every;
  async function* measure(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
      if (bytes >= nextReport) {
        options.onProgress?.(bytes, total);
        nextReport = bytes + every;
      }
      yield chunk;
    }
  }
  try {
    await pipeline(
      Readable.fromWeb(response.body as NodeWebStream<Uint8Array>),
      measure,
      createWriteStream(file),
      { signal: options.signal },
    );
  } catch (error) {
    throw fetchFailure(url, error);
  }
  if (total !== undefined && bytes !== total)
    throw new Error(`GET ${displayUrl(url)} ended after ${bytes} of ${total} bytes`);
  return { bytes, sha256: hash.digest('hex') };
}
