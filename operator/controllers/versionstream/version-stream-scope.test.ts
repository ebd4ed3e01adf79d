import { describe, expect, it } from '@jest/globals';
import type { VersionStream } from '../../../client/api/resources.js';
import { VERSION_STREAMS } from '../../../client/api/resources.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import type { HttpGetter } from './http-get.js';
import { VersionStreamController } from './version-stream-controller.js';

/** An update service and mirror that never answer, and the URLs asked for. */
function unreachable(): HttpGetter & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    get: (url) => (asked.push(url), Promise.resolve({ kind: 'failed', message: 'unreachable' })),
  };
}

const settings = {
  updateServiceUrl: 'https://updates.example.test',
  crcBundleMirrorUrl: 'https://mirror.example.test',
  intervalMs: 300_000,
  requestTimeoutMs: 1000,
  backoff: { baseMs: 1000, maxMs: 60_000 },
  scope: { labels: { team: 'a' } },
};

function stream(name: string, labels: Record<string, string>): VersionStream {
  return {
    apiVersion: VERSION_STREAMS.apiVersion,
    kind: VERSION_STREAMS.kind,
    metadata: { name, labels },
    spec: { minor: '4.19' },
  };
}

describe("VersionStreamController and the operator's scope", () => {
  it("resolves the streams with the scope's labels, and leaves the others alone", async () => {
    const ports = fakePorts();
    const http = unreachable();
    const controller = new VersionStreamController(ports, settings, { http, random: () => 0.5 });
    ports.api.seed(VERSION_STREAMS, stream('theirs', { team: 'b' }));
    ports.api.seed(VERSION_STREAMS, stream('ours', { team: 'a' }));

    expect(await controller.reconcile('theirs')).toEqual({});
    expect(http.asked).toEqual([]);
    expect(ports.api.writes).toEqual([]);

    await controller.reconcile('ours');
    expect(http.asked.length).toBeGreaterThan(0);
    expect(ports.api.writes).toEqual(['status VersionStream ours']);
  });
});
