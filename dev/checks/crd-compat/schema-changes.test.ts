import { describe, expect, it } from '@jest/globals';
import type { JsonSchema } from '../../control-plane/platform-crds/crd-manifest.js';
import type { Rule } from './change.js';
import { schemaChanges } from './schema-changes.js';

/** A spec object with one field `f` of the given schema (and what else the case needs). */
const spec = (f: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: { f }, ...extra } },
});

interface Case {
  rule: Rule;
  path: string;
  released: JsonSchema;
  narrowed: JsonSchema;
  widened: JsonSchema;
}

// Each rule: the released schema, a change that refuses or drops what it stored (found, at the
// field's path), and a change that keeps all of it (not found).
const CASES: Record<string, Case> = {
  'a removed field': {
    rule: 'field-removed',
    path: '.spec.f',
    released: spec({ type: 'string' }),
    narrowed: { type: 'object', properties: { spec: { type: 'object', properties: {} } } },
    widened: spec(
      { type: 'string' },
      { properties: { f: { type: 'string' }, g: { type: 'integer' } } },
    ),
  },
  'a removed map': {
    rule: 'field-removed',
    path: '.spec.f.*',
    released: spec({ type: 'object', additionalProperties: { type: 'string' } }),
    narrowed: spec({ type: 'object' }),
    widened: spec({
      type: 'object',
      additionalProperties: { type: 'string', description: 'a value' },
    }),
  },
  'a changed type': {
    rule: 'type-changed',
    path: '.spec.f',
    released: spec({ type: 'integer' }),
    narrowed: spec({ type: 'string' }),
    widened: spec({ type: 'integer', 'x-kubernetes-int-or-string': true }),
  },
  'a new or changed format': {
    rule: 'format-changed',
    path: '.spec.f',
    released: spec({ type: 'string' }),
    narrowed: spec({ type: 'string', format: 'date-time' }),
    widened: spec({ type: 'string', description: 'any text' }),
  },
  'a narrowed enum': {
    rule: 'enum-narrowed',
    path: '.spec.f',
    released: spec({ type: 'string', enum: ['crc', 'hcp'] }),
    narrowed: spec({ type: 'string', enum: ['hcp'] }),
    widened: spec({ type: 'string', enum: ['crc', 'hcp', 'sno'] }),
  },
  'an enum where there was none': {
    rule: 'enum-narrowed',
    path: '.spec.f',
    released: spec({ type: 'string' }),
    narrowed: spec({ type: 'string', enum: ['crc'] }),
    widened: spec({ type: 'string' }),
  },
  'a new pattern': {
    rule: 'pattern-changed',
    path: '.spec.f',
    released: spec({ type: 'string', pattern: '^[a-z]+$' }),
    narrowed: spec({ type: 'string', pattern: '^[a-z]+[0-9]$' }),
    widened: spec({ type: 'string' }),
  },
  'a raised minimum': {
    rule: 'bound-tightened',
    path: '.spec.f',
    released: spec({ type: 'integer', minimum: 0 }),
    narrowed: spec({ type: 'integer', minimum: 1 }),
    widened: spec({ type: 'integer', minimum: -1 }),
  },
  'a lowered maximum': {
    rule: 'bound-tightened',
    path: '.spec.f',
    released: spec({ type: 'integer', maximum: 64 }),
    narrowed: spec({ type: 'integer', maximum: 32 }),
    widened: spec({ type: 'integer' }),
  },
  'an exclusive minimum': {
    rule: 'bound-tightened',
    path: '.spec.f',
    released: spec({ type: 'integer', minimum: 0 }),
    narrowed: spec({ type: 'integer', minimum: 0, exclusiveMinimum: true }),
    widened: spec({ type: 'integer', minimum: 0, exclusiveMaximum: false }),
  },
  'a lowered maxLength': {
    rule: 'bound-tightened',
    path: '.spec.f',
    released: spec({ type: 'string', maxLength: 48 }),
    narrowed: spec({ type: 'string', maxLength: 40 }),
    widened: spec({ type: 'string', maxLength: 63 }),
  },
  'a new minLength': {
    rule: 'bound-tightened',
    path: '.spec.f',
    released: spec({ type: 'string' }),
    narrowed: spec({ type: 'string', minLength: 1 }),
    widened: spec({ type: 'string', minLength: 0 }),
  },
  'a lowered maxItems': {
    rule: 'bound-tightened',
    path: '.spec.f',
    released: spec({ type: 'array', maxItems: 10, items: { type: 'string' } }),
    narrowed: spec({ type: 'array', maxItems: 5, items: { type: 'string' } }),
    widened: spec({ type: 'array', maxItems: 20, items: { type: 'string' } }),
  },
  'a tightened item': {
    rule: 'bound-tightened',
    path: '.spec.f[*]',
    released: spec({ type: 'array', items: { type: 'string', maxLength: 10 } }),
    narrowed: spec({ type: 'array', items: { type: 'string', maxLength: 5 } }),
    widened: spec({ type: 'array', items: { type: 'string', maxLength: 20 } }),
  },
  'a new multipleOf': {
    rule: 'bound-tightened',
    path: '.spec.f',
    released: spec({ type: 'integer' }),
    narrowed: spec({ type: 'integer', multipleOf: 2 }),
    widened: spec({ type: 'number' }),
  },
  'a new required field': {
    rule: 'required-added',
    path: '.spec.f',
    released: spec({ type: 'string' }),
    narrowed: spec({ type: 'string' }, { required: ['f'] }),
    widened: spec({ type: 'string', default: 'x' }, { required: ['f'] }),
  },
  'nullable removed': {
    rule: 'nullable-removed',
    path: '.spec.f',
    released: spec({ type: 'string', nullable: true }),
    narrowed: spec({ type: 'string' }),
    widened: spec({ type: 'string', nullable: true, description: 'or null' }),
  },
  'x-kubernetes-preserve-unknown-fields removed': {
    rule: 'preserve-unknown-fields-removed',
    path: '.spec.f',
    released: spec({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
    narrowed: spec({ type: 'object', properties: { a: { type: 'string' } } }),
    widened: spec({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { a: { type: 'string' } },
    }),
  },
  'a list that became a set': {
    rule: 'list-type-changed',
    path: '.spec.f',
    released: spec({ type: 'array', items: { type: 'string' } }),
    narrowed: spec({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' }),
    widened: spec({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' }),
  },
  'changed list-map keys': {
    rule: 'list-type-changed',
    path: '.spec.f',
    released: spec({
      type: 'array',
      items: { type: 'object', properties: { type: { type: 'string' } } },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
    narrowed: spec({
      type: 'array',
      items: { type: 'object', properties: { type: { type: 'string' }, name: { type: 'string' } } },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type', 'name'],
    }),
    widened: spec({
      type: 'array',
      items: { type: 'object', properties: { type: { type: 'string' } } },
    }),
  },
  'a new CEL rule': {
    rule: 'validation-added',
    path: '.spec',
    released: spec({ type: 'string' }, { 'x-kubernetes-validations': [{ rule: 'has(self.f)' }] }),
    narrowed: spec(
      { type: 'string' },
      { 'x-kubernetes-validations': [{ rule: 'has(self.f)' }, { rule: 'self.f != ""' }] },
    ),
    widened: spec(
      { type: 'string' },
      { 'x-kubernetes-validations': [{ rule: 'has(self.f)', message: 'f is needed' }] },
    ),
  },
};

describe('schemaChanges', () => {
  it.each(Object.entries(CASES))('finds %s, and lets its widening pass', (_, c) => {
    expect(schemaChanges(c.released, c.narrowed)).toEqual([
      expect.objectContaining({ rule: c.rule, path: c.path, message: expect.any(String) }),
    ]);
    expect(schemaChanges(c.released, c.widened)).toEqual([]);
  });

  it('keeps a removed field where the object preserves unknown fields: nothing is dropped', () => {
    const released = spec({ type: 'string' });
    const open = {
      type: 'object',
      properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    };
    expect(schemaChanges(released, open)).toEqual([]);
  });

  it('names the new CEL rule, which the allow-list matches by its text', () => {
    const c = CASES['a new CEL rule']!;
    expect(schemaChanges(c.released, c.narrowed)[0]?.celRule).toBe('self.f != ""');
  });

  it('finds nothing between a schema and itself', () => {
    for (const c of Object.values(CASES)) expect(schemaChanges(c.released, c.released)).toEqual([]);
  });
});
