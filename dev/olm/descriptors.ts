/**
 * The CSV's spec and status descriptors of a CRD, derived from its schema (one level below spec
 * and status), so the OperatorHub form and details view follow the CRDs as they change.
 */
export interface Descriptor {
  path: string;
  displayName: string;
  description?: string;
  'x-descriptors'?: string[];
}

interface Schema {
  type?: string;
  description?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
}

const ACRONYMS = new Set(['ttl', 'crc', 'hcp', 'ocp', 'url', 'ssh', 'sha256', 'pvc', 'uid', 'api']);
/** Names spelled as their projects spell them. */
const NAMES: [RegExp, string][] = [[/\bHyper Shift\b/g, 'HyperShift']];

/** `maxLeaseDuration` → `Max Lease Duration`, `crcVersion` → `CRC Version`. */
export function displayName(field: string): string {
  const words = field
    .split(/(?<=[a-z0-9])(?=[A-Z])/)
    .map((word) =>
      ACRONYMS.has(word.toLowerCase())
        ? word.toUpperCase()
        : word.charAt(0).toUpperCase() + word.slice(1),
    )
    .join(' ');
  return NAMES.reduce((name, [pattern, spelled]) => name.replace(pattern, spelled), words);
}

function xDescriptors(field: string, schema: Schema, side: 'spec' | 'status'): string[] {
  if (field === 'conditions' && schema.type === 'array')
    return ['urn:alm:descriptor:io.kubernetes.conditions'];
  if (side === 'status') {
    if (field === 'phase') return ['urn:alm:descriptor:io.kubernetes.phase'];
    if (/SecretRef$/.test(field)) return ['urn:alm:descriptor:io.kubernetes:Secret'];
    return schema.type === 'object' || schema.type === 'array' ? [] : ['urn:alm:descriptor:text'];
  }
  if (/SecretRef$/.test(field)) return ['urn:alm:descriptor:io.kubernetes:Secret'];
  if (schema.enum)
    return schema.enum.map((value) => `urn:alm:descriptor:com.tectonic.ui:select:${String(value)}`);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return ['urn:alm:descriptor:com.tectonic.ui:number'];
    case 'boolean':
      return ['urn:alm:descriptor:com.tectonic.ui:booleanSwitch'];
    case 'string':
      return ['urn:alm:descriptor:com.tectonic.ui:text'];
    default:
      return [];
  }
}

export function descriptorsOf(schema: Schema | undefined, side: 'spec' | 'status'): Descriptor[] {
  return Object.entries(schema?.properties ?? {}).map(([field, property]) => {
    // A reference to a Secret is an object; the console's Secret link wants its name.
    const secretName = /SecretRef$/.test(field) && property.properties?.name;
    const descriptor: Descriptor = {
      path: secretName ? `${field}.name` : field,
      displayName: displayName(field),
    };
    if (property.description) descriptor.description = property.description.trim();
    const x = xDescriptors(field, property, side);
    if (x.length > 0) descriptor['x-descriptors'] = x;
    return descriptor;
  });
}
