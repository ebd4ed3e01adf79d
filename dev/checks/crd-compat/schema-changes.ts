import type { JsonSchema } from '../../control-plane/platform-crds/crd-manifest.js';
import type { SchemaChange } from './change.js';

// What a released schema accepted must stay accepted, and what it kept must stay kept
// (docs/reference/api-compatibility.md#what-the-check-refuses). Each function below looks at one
// keyword of one schema node; schemaChanges walks the tree.

type Node = JsonSchema;

const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
const INT_OR_STRING = 'x-kubernetes-int-or-string';
const LIST_TYPE = 'x-kubernetes-list-type';
const LIST_MAP_KEYS = 'x-kubernetes-list-map-keys';
const VALIDATIONS = 'x-kubernetes-validations';

const LOWER_BOUNDS = ['minimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

/** Widenings of a type that every stored value of the old type still passes. */
const WIDER_TYPES: Readonly<Record<string, readonly string[]>> = {
  integer: ['number', 'int-or-string'],
  string: ['int-or-string'],
};

const show = (value: unknown): string => JSON.stringify(value);
const preserves = (node: Node): boolean => node[PRESERVE] === true;
const child = (node: Node, key: string): Node | undefined => {
  const value = node[key];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined;
};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

function typeOf(node: Node): string | undefined {
  if (node[INT_OR_STRING] === true) return 'int-or-string';
  return typeof node.type === 'string' ? node.type : undefined;
}

function typeChanges(old: Node, next: Node, path: string): SchemaChange[] {
  const [was, is] = [typeOf(old), typeOf(next)];
  if (was === undefined || was === is || (is && WIDER_TYPES[was]?.includes(is))) return [];
  return [
    {
      path,
      rule: 'type-changed',
      message: `type ${was} became ${is ?? 'untyped'}: stored ${was} values no longer validate`,
    },
  ];
}

function formatChanges(old: Node, next: Node, path: string): SchemaChange[] {
  if (next.format === undefined || next.format === old.format) return [];
  return [
    {
      path,
      rule: 'format-changed',
      message: `format ${show(old.format ?? 'none')} became ${show(next.format)}: stored values may not match it`,
    },
  ];
}

function enumChanges(old: Node, next: Node, path: string): SchemaChange[] {
  if (!Array.isArray(next.enum)) return [];
  if (!Array.isArray(old.enum))
    return [
      {
        path,
        rule: 'enum-narrowed',
        message: `an enum ${show(next.enum)} where any value was accepted`,
      },
    ];
  const kept = new Set(next.enum.map(show));
  const dropped = old.enum.filter((v) => !kept.has(show(v)));
  if (dropped.length === 0) return [];
  return [
    {
      path,
      rule: 'enum-narrowed',
      message: `enum values ${dropped.map(show).join(', ')} were removed`,
    },
  ];
}

function patternChanges(old: Node, next: Node, path: string): SchemaChange[] {
  if (next.pattern === undefined || next.pattern === old.pattern) return [];
  return [
    {
      path,
      rule: 'pattern-changed',
      message: `pattern ${show(old.pattern ?? 'none')} became ${show(next.pattern)}: a pattern cannot be proven wider`,
    },
  ];
}

/** Counts (length, items, properties) start at 0: a new minLength of 0 bounds nothing. */
const COUNT_FLOOR: Readonly<Record<string, number>> = {
  minLength: 0,
  minItems: 0,
  minProperties: 0,
};

function boundChange(
  key: string,
  old: Node,
  next: Node,
  tighter: (was: number, is: number) => boolean,
): string | undefined {
  const [was, is] = [old[key] ?? COUNT_FLOOR[key], next[key]];
  if (typeof is !== 'number') return undefined;
  if (typeof was === 'number' && !tighter(was, is)) return undefined;
  return `${key} ${typeof was === 'number' ? was : 'none'} became ${is}`;
}

function boundChanges(old: Node, next: Node, path: string): SchemaChange[] {
  const found = [
    ...LOWER_BOUNDS.map((k) => boundChange(k, old, next, (was, is) => is > was)),
    ...UPPER_BOUNDS.map((k) => boundChange(k, old, next, (was, is) => is < was)),
    ...(['exclusiveMinimum', 'exclusiveMaximum'] as const).map((k) =>
      next[k] === true && old[k] !== true ? `${k} was turned on` : undefined,
    ),
    next.multipleOf !== undefined && next.multipleOf !== old.multipleOf
      ? `multipleOf ${show(old.multipleOf ?? 'none')} became ${show(next.multipleOf)}`
      : undefined,
  ].filter((m): m is string => m !== undefined);
  return found.map((message) => ({ path, rule: 'bound-tightened', message }));
}

function requiredChanges(old: Node, next: Node, path: string): SchemaChange[] {
  const was = new Set(strings(old.required));
  const properties = child(next, 'properties') ?? {};
  return strings(next.required)
    .filter((name) => !was.has(name) && child(properties, name)?.default === undefined)
    .map((name) => ({
      path: `${path}.${name}`,
      rule: 'required-added',
      message: 'became required without a default: stored objects without it no longer validate',
    }));
}

function flagChanges(old: Node, next: Node, path: string): SchemaChange[] {
  const changes: SchemaChange[] = [];
  if (old.nullable === true && next.nullable !== true)
    changes.push({
      path,
      rule: 'nullable-removed',
      message: 'no longer nullable: stored nulls no longer validate',
    });
  if (preserves(old) && !preserves(next))
    changes.push({
      path,
      rule: 'preserve-unknown-fields-removed',
      message: `${PRESERVE} was removed: fields stored under it are dropped when read`,
    });
  return changes;
}

function listTypeChanges(old: Node, next: Node, path: string): SchemaChange[] {
  if (typeOf(old) !== 'array') return [];
  const was = typeof old[LIST_TYPE] === 'string' ? old[LIST_TYPE] : 'atomic';
  const is = typeof next[LIST_TYPE] === 'string' ? next[LIST_TYPE] : 'atomic';
  const keysChanged =
    was === 'map' &&
    is === 'map' &&
    show(strings(old[LIST_MAP_KEYS])) !== show(strings(next[LIST_MAP_KEYS]));
  if ((was === is || is === 'atomic') && !keysChanged) return [];
  const what = keysChanged
    ? `${LIST_MAP_KEYS} ${show(old[LIST_MAP_KEYS])} became ${show(next[LIST_MAP_KEYS])}`
    : `${LIST_TYPE} ${was} became ${is}`;
  return [
    {
      path,
      rule: 'list-type-changed',
      message: `${what}: stored lists may repeat what it forbids`,
    },
  ];
}

function celRules(node: Node): string[] {
  const rules = node[VALIDATIONS];
  if (!Array.isArray(rules)) return [];
  return rules
    .map((r) => (r && typeof r === 'object' ? (r as Node).rule : undefined))
    .filter((r): r is string => typeof r === 'string');
}

function validationChanges(old: Node, next: Node, path: string): SchemaChange[] {
  const was = new Set(celRules(old));
  return celRules(next)
    .filter((rule) => !was.has(rule))
    .map((rule) => ({
      path,
      rule: 'validation-added',
      celRule: rule,
      message: `new CEL rule ${show(rule)}: it cannot be proven to accept stored objects; allow-list it with a reason once it is known to`,
    }));
}

function propertyChanges(old: Node, next: Node, path: string): SchemaChange[] {
  const nextProperties = child(next, 'properties') ?? {};
  return Object.entries(child(old, 'properties') ?? {}).flatMap(([name, was]) => {
    const is = child(nextProperties, name);
    if (is) return schemaChanges(was as Node, is, `${path}.${name}`);
    if (preserves(next)) return [];
    return [
      {
        path: `${path}.${name}`,
        rule: 'field-removed' as const,
        message: 'the field was removed: stored values are dropped when read',
      },
    ];
  });
}

function nestedChanges(old: Node, next: Node, path: string): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const [oldItems, nextItems] = [child(old, 'items'), child(next, 'items')];
  if (oldItems && nextItems) changes.push(...schemaChanges(oldItems, nextItems, `${path}[*]`));
  const [oldValues, nextValues] = [
    child(old, 'additionalProperties'),
    child(next, 'additionalProperties'),
  ];
  if (oldValues && nextValues) changes.push(...schemaChanges(oldValues, nextValues, `${path}.*`));
  else if (oldValues && next.additionalProperties !== true && !preserves(next))
    changes.push({
      path: `${path}.*`,
      rule: 'field-removed',
      message:
        'the map (additionalProperties) was removed: its stored entries are dropped when read',
    });
  return changes;
}

/** Every change from `old` to `next` that a value `old` accepted or kept would not survive. */
export function schemaChanges(old: Node, next: Node, path = ''): SchemaChange[] {
  return [
    ...typeChanges(old, next, path),
    ...formatChanges(old, next, path),
    ...enumChanges(old, next, path),
    ...patternChanges(old, next, path),
    ...boundChanges(old, next, path),
    ...requiredChanges(old, next, path),
    ...flagChanges(old, next, path),
    ...listTypeChanges(old, next, path),
    ...validationChanges(old, next, path),
    ...propertyChanges(old, next, path),
    ...nestedChanges(old, next, path),
  ];
}
