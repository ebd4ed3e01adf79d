import { afterAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { CrdManifest } from '../../dev/control-plane/platform-crds/crd-manifest.js';
import { crdChanges } from '../../dev/checks/crd-compat/crd-changes.js';
import { kubectl } from '../support/kubectl.js';
import { useWorld } from '../support/world.js';

// What the CRD compatibility check refuses is what the apiserver does to stored objects
// (docs/reference/api-compatibility.md#why-stored-objects-constrain-the-schema): a removed field
// is dropped when read and lost at the next write; a narrowed one refuses what was accepted.

const { ns } = useWorld({ namespace: 'crd-compat' });
const group = (): string => `${ns.name}.compat.test.opdev.io`;

const widgetCrd = (size: Record<string, unknown>, withNote: boolean): CrdManifest => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${group()}` },
  spec: {
    group: group(),
    scope: 'Namespaced',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', ...size },
                  ...(withNote ? { note: { type: 'string' } } : {}),
                },
              },
            },
          },
        },
      },
    ],
  },
});

const widget = (name: string, spec: Record<string, unknown>): string =>
  stringify({
    apiVersion: `${group()}/v1alpha1`,
    kind: 'Widget',
    metadata: { name, namespace: ns.name },
    spec,
  });

const readSpec = async (name: string): Promise<Record<string, unknown>> =>
  (
    JSON.parse(
      (await kubectl(['-n', ns.name, 'get', `widgets.${group()}`, name, '-o', 'json'])).stdout,
    ) as {
      spec: Record<string, unknown>;
    }
  ).spec;

/**
 * A CRD's new schema reaches the apiserver's handler without an event to watch for, so this looks
 * (with a server-side dry run of `probe`) until `served` holds, for at most 30 s.
 */
async function untilServed(
  probe: string,
  served: (accepted: boolean) => boolean,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const accepted = await kubectl(['create', '--dry-run=server', '-f', '-'], probe).then(
      () => true,
      () => false,
    );
    if (served(accepted)) return;
    if (Date.now() > deadline)
      throw new Error(`Timed out after 30s waiting for the apiserver to serve ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a CRD change the check refuses', () => {
  afterAll(async () => {
    await kubectl(['delete', 'crd', `widgets.${group()}`, '--ignore-not-found']);
  });

  it('drops a removed field from the stored object and refuses a narrowed value the release accepted', async () => {
    const released = widgetCrd({ maximum: 64 }, true);
    const narrowed = widgetCrd({ maximum: 32 }, false);
    expect(crdChanges([released], [narrowed]).map((c) => `${c.path}: ${c.rule}`)).toEqual([
      '.spec.size: bound-tightened',
      '.spec.note: field-removed',
    ]);

    await kubectl(['apply', '-f', '-'], stringify(released));
    await kubectl(['wait', '--for=condition=Established', `crd/widgets.${group()}`]);
    await untilServed(widget('probe', { size: 1 }), (ok) => ok, 'the released schema');
    await kubectl(['create', '-f', '-'], widget('stored', { size: 50, note: 'kept' }));

    await kubectl(['apply', '-f', '-'], stringify(narrowed));
    await untilServed(widget('probe', { size: 50 }), (ok) => !ok, 'the narrowed schema');
    // Read through the narrowed schema: the note is pruned, the size (not validated on read) stays.
    expect(await readSpec('stored')).toEqual({ size: 50 });
    // The value the release stored is refused when written anew, naming the field.
    const refused = await kubectl(['create', '-f', '-'], widget('again', { size: 50 })).then(
      () => '',
      (error: unknown) => String(error),
    );
    expect(refused).toMatch(/spec\.size/);
    // A write that leaves the size as it is passes (validation ratcheting) and stores the
    // object without its note.
    await kubectl(['-n', ns.name, 'label', `widgets.${group()}`, 'stored', 'written=yes']);

    await kubectl(['apply', '-f', '-'], stringify(released));
    await untilServed(
      widget('probe', { size: 50, note: 'x' }),
      (ok) => ok,
      'the released schema again',
    );
    expect(await readSpec('stored')).toEqual({ size: 50 });
  });
});
