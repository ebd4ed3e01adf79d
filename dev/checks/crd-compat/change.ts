/**
 * The rules of the CRD compatibility check (docs/reference/api-compatibility.md#what-the-check-refuses):
 * each names a change that would make the apiserver refuse or drop an object stored under the
 * released schema.
 */
export type Rule =
  | 'crd-removed'
  | 'scope-changed'
  | 'names-changed'
  | 'version-removed'
  | 'field-removed'
  | 'type-changed'
  | 'format-changed'
  | 'enum-narrowed'
  | 'pattern-changed'
  | 'bound-tightened'
  | 'required-added'
  | 'nullable-removed'
  | 'preserve-unknown-fields-removed'
  | 'list-type-changed'
  | 'validation-added';

/** One incompatible change: where it is (the CRD, its version, a field path) and what it breaks. */
export interface Change {
  crd: string;
  version: string;
  /** `.spec.template.cores`, `.spec.subjects[*].kind`, `.metadata.labels.*`; `` for the CRD itself. */
  path: string;
  rule: Rule;
  message: string;
  /** validation-added only: the CEL rule's text, which the allow-list names. */
  celRule?: string;
}

/** A change found within one schema, before it is placed in a CRD and version. */
export type SchemaChange = Omit<Change, 'crd' | 'version'>;

export function formatChange(c: Change): string {
  const where = [c.crd, c.version, c.path].filter(Boolean).join(' ');
  return `${where}: ${c.rule}: ${c.message}`;
}
