import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { SECRETS } from '../../client/api/resources.js';
import type { ApiClient, ListOptions, WatchOptions } from '../../client/kube/api-client.js';
import type { KubeObject } from '../kube/objects.js';
import { Informer } from './informer.js';
import { RuntimeMetrics } from './metrics.js';

/** A Secret as a full read would give it: data, and an annotation that quotes the data. */
const SECRET = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'github-credentials',
    namespace: 'ops',
    uid: 'uid-1',
    resourceVersion: '7',
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"token":"c2"}}' },
    labels: { team: 'ci' },
  },
  data: { token: 'c2VjcmV0' },
};

/** An API that answers one list and then a watch that ends when the informer stops. */
function api(asked: (ListOptions | WatchOptions)[]): ApiClient {
  return {
    list: (_type: unknown, options: ListOptions) => {
      asked.push(options);
      return Promise.resolve({ items: [structuredClone(SECRET)], resourceVersion: '7' });
    },
    watch: (_type: unknown, options: WatchOptions, _onEvent: unknown, signal: AbortSignal) => {
      asked.push(options);
      return new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve()),
      );
    },
  } as unknown as ApiClient;
}

describe('a metadata-only informer', () => {
  it('asks for metadata only and keeps nothing but what names each object', async () => {
    const asked: (ListOptions | WatchOptions)[] = [];
    const informer = new Informer<KubeObject>({
      type: SECRETS,
      namespace: 'ops',
      metadataOnly: true,
      client: api(asked),
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
    });
    const added: KubeObject[] = [];
    informer.addHandlers({ onAdd: (object) => added.push(object) });
    informer.start();
    await informer.synced;
    const expected = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'github-credentials',
        namespace: 'ops',
        uid: 'uid-1',
        resourceVersion: '7',
      },
    };
    expect(informer.get('ops/github-credentials')).toEqual(expected);
    expect(added).toEqual([expected]);
    expect(JSON.stringify(informer.list())).not.toContain('c2');
    await informer.stop();
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(
      asked.every((options) => options.metadataOnly === true && options.namespace === 'ops'),
    ).toBe(true);
  });
});

describe('an informer', () => {
  it('keeps no managedFields of the objects it lists and watches, and the rest as sent', async () => {
    const managedFields = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': {} } }];
    const listed = { ...structuredClone(SECRET), metadata: { ...SECRET.metadata, managedFields } };
    const modified = structuredClone(listed);
    modified.metadata.resourceVersion = '8';
    const client = {
      list: () => Promise.resolve({ items: [structuredClone(listed)], resourceVersion: '7' }),
      watch: (
        _type: unknown,
        _options: WatchOptions,
        onEvent: (event: { type: string; object: unknown }) => void,
        signal: AbortSignal,
      ) => {
        onEvent({ type: 'MODIFIED', object: structuredClone(modified) });
        return new Promise<void>((resolve) =>
          signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve()),
        );
      },
    } as unknown as ApiClient;
    const informer = new Informer<KubeObject>({
      type: SECRETS,
      client,
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
    });
    const seen: KubeObject[] = [];
    const updated = new Promise<void>((resolve) =>
      informer.addHandlers({
        onAdd: (object) => seen.push(object),
        onUpdate: (_previous, current) => (seen.push(current), resolve()),
      }),
    );
    informer.start();
    await updated;
    await informer.stop();
    // SECRET's metadata is the listed one without its managedFields.
    const stripped = { ...modified, metadata: { ...SECRET.metadata, resourceVersion: '8' } };
    expect(seen).toEqual([{ ...listed, metadata: SECRET.metadata }, stripped]);
    expect(informer.get('ops/github-credentials')).toEqual(stripped);
  });
});
