import { describe, expect, it } from '@jest/globals';
import { CONFIG_MAPS } from '../../client/api/core-resources.js';
import type { KubeObject, Stored } from '../kube/objects.js';
import type { NamespacedType } from '../../client/kube/resource-type.js';
import type { FakePorts } from '../../test/support/fake-ports.js';
import { fakePorts } from '../../test/support/fake-ports.js';
import type { ObjectSource } from './object-source.js';
import { current, portsSource } from './object-source.js';
import type { ObjectRecord, RecordOwner } from './recorded-objects.js';
import { RecordedObjects, roleList } from './recorded-objects.js';
import { StepFailure } from './step-errors.js';

const NS = 'builds';
const OWNER_LABEL = 'example.org/owner';

type Role = 'DNSConfig' | 'Inputs';

/** A ConfigMap as an owner makes it: labelled as its own. */
const desired = (name: string): KubeObject => ({
  metadata: { name, namespace: NS, labels: { [OWNER_LABEL]: 'me' } },
});

/**
 * An owner on the in-memory ports: the engine's "cache, else live" read, creates counted by the
 * fake's write log, its objects told by a label, and its own words for lost ones.
 */
function owner(ports: FakePorts): RecordOwner {
  const source = portsSource(ports);
  return {
    current: <T extends KubeObject>(type: NamespacedType, name: string) =>
      current<T>(source, type, name, NS),
    create: <T extends KubeObject>(type: NamespacedType, object: T) =>
      ports.client.create<T>(type, object),
    ours: (object) => object.metadata.labels?.[OWNER_LABEL] === 'me',
    lost: (r) => new StepFailure('ObjectLost', `${r.kind} ${r.namespace}/${r.name} (${r.role})`),
    replaced: (r, uid) => new StepFailure('ObjectReplaced', `${r.name}: ${uid}, made ${r.uid}`),
    notOurs: (type, found) =>
      new StepFailure('ObjectConflict', `${type.kind} ${found.metadata.name}`),
  };
}

describe('RecordedObjects', () => {
  /** The records as the owner's status would hold them: a role-keyed list. */
  let list: ObjectRecord[] | undefined;
  let ports: FakePorts;
  let records: RecordedObjects<Role>;

  beforeEach(() => {
    list = undefined;
    ports = fakePorts();
    records = new RecordedObjects<Role>(
      roleList({ get: () => list, set: (next) => (list = next) }),
      owner(ports),
    );
  });

  const ensure = () =>
    records.ensureRecorded('DNSConfig', CONFIG_MAPS, 'dns', () => desired('dns'));
  const stored = (): Stored<KubeObject> => ports.api.peek(CONFIG_MAPS, 'dns', NS)!;

  it('creates a missing object and records it before anything uses it', async () => {
    const verdict = await ensure();

    expect(ports.api.writes).toEqual(['create ConfigMap builds/dns']);
    expect(verdict).toEqual({ record: stored() });
    expect(list).toEqual([
      {
        role: 'DNSConfig',
        kind: 'ConfigMap',
        namespace: NS,
        name: 'dns',
        uid: stored().metadata.uid,
      },
    ]);
  });

  it('hands on the recorded object on later passes, creating nothing', async () => {
    await ensure();
    const writes = ports.api.writes.length;

    expect(await ensure()).toEqual({ holds: stored() });
    expect(ports.api.writes.length).toBe(writes);
  });

  it('records an object of its own found under the name, without creating one', async () => {
    const found = ports.api.seed(CONFIG_MAPS, desired('dns'));

    expect(await ensure()).toEqual({
      record: expect.objectContaining({ metadata: found.metadata }),
    });
    expect(ports.api.writes).toEqual([]);
    expect(records.recorded('DNSConfig')?.uid).toBe(found.metadata?.uid);
  });

  it("fails on an object of the name that is not the owner's, recording nothing", async () => {
    ports.api.seed(CONFIG_MAPS, { metadata: { name: 'dns', namespace: NS } });

    expect(await ensure()).toEqual({ fail: expect.objectContaining({ reason: 'ObjectConflict' }) });
    expect(list).toBeUndefined();
    expect(ports.api.writes).toEqual([]);
  });

  it('fails when the recorded object is gone, and does not make it again', async () => {
    await ensure();
    await ports.client.delete(CONFIG_MAPS, stored());
    const writes = ports.api.writes.length;

    const verdict = await ensure();

    expect(verdict).toEqual({ fail: expect.any(StepFailure) });
    expect('fail' in verdict && verdict.fail).toMatchObject({
      reason: 'ObjectLost',
      message: 'ConfigMap builds/dns (DNSConfig)',
    });
    expect(ports.api.writes.length).toBe(writes);
  });

  it('fails when the recorded object is being deleted', async () => {
    await ensure();
    ports.api.seed(CONFIG_MAPS, {
      ...stored(),
      metadata: { ...stored().metadata, deletionTimestamp: '2026-12-01T12:00:00Z' },
    });

    expect(await ensure()).toEqual({ fail: expect.objectContaining({ reason: 'ObjectLost' }) });
  });

  it('fails when another object of its name replaced the recorded one, naming both UIDs', async () => {
    await ensure();
    const made = stored().metadata.uid;
    await ports.client.delete(CONFIG_MAPS, stored());
    const replacement = ports.api.seed(CONFIG_MAPS, desired('dns'));

    const verdict = await ensure();

    expect('fail' in verdict && verdict.fail).toMatchObject({
      reason: 'ObjectReplaced',
      message: `dns: ${replacement.metadata?.uid}, made ${made}`,
    });
    expect(records.verify('DNSConfig', stored())).toMatchObject({ reason: 'ObjectReplaced' });
  });

  it('verifies a recorded object as found, and nothing for a role with no record', async () => {
    await ensure();

    expect(records.verify('DNSConfig', stored())).toBeUndefined();
    expect(records.verify('DNSConfig', undefined)).toMatchObject({ reason: 'ObjectLost' });
    expect(records.verify('Inputs', undefined)).toBeUndefined();
  });

  it('keeps one record per role in a role-keyed list', async () => {
    await ensure();
    const other = ports.api.seed(CONFIG_MAPS, desired('inputs'));
    records.record('Inputs', CONFIG_MAPS, other as Stored<KubeObject>);
    records.record('DNSConfig', CONFIG_MAPS, other as Stored<KubeObject>);

    expect(list?.map((r) => [r.role, r.uid])).toEqual([
      ['Inputs', other.metadata?.uid],
      ['DNSConfig', other.metadata?.uid],
    ]);
  });
});

describe('current', () => {
  it('reads live what the cache does not hold yet', async () => {
    const live: string[] = [];
    const lagging: ObjectSource = {
      cached: () => undefined,
      live: async (_: NamespacedType, name: string) => {
        live.push(name);
        await Promise.resolve();
        return { metadata: { name, namespace: NS, uid: 'u', resourceVersion: '1' } } as never;
      },
    };

    expect((await current(lagging, CONFIG_MAPS, 'dns', NS))?.metadata.uid).toBe('u');
    expect(live).toEqual(['dns']);
  });

  it('takes what the cache holds without a live read', async () => {
    const ports = fakePorts();
    const seeded = ports.api.seed(CONFIG_MAPS, desired('dns'));
    const source = portsSource(ports);
    const read = { ...source, live: () => Promise.reject(new Error('no live read expected')) };

    expect((await current(read, CONFIG_MAPS, 'dns', NS))?.metadata.uid).toBe(seeded.metadata?.uid);
  });
});
