import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { compile } from 'json-schema-to-typescript';
import prettier from 'prettier';
import { parse } from 'yaml';

/** A CRD schema node as found in the manifests (raw keys, `x-kubernetes-*` included). */
type SchemaNode = Record<string, unknown>;

/**
 * Turns the Kubernetes extensions into plain JSON Schema so the generated types match what the
 * apiserver accepts: open objects allow any key, int-or-string is a union, and every other object
 * is closed (the apiserver prunes unknown fields).
 */
function toJsonSchema(node: SchemaNode): SchemaNode {
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-kubernetes-')) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, toJsonSchema(child as SchemaNode)]),
      );
    } else if (
      (key === 'items' || key === 'additionalProperties') &&
      value &&
      typeof value === 'object'
    ) {
      out[key] = toJsonSchema(value as SchemaNode);
    } else {
      out[key] = value;
    }
  }
  if (node['x-kubernetes-int-or-string'] === true) {
    delete out.type;
    out.type = ['integer', 'string'];
  }
  if (node['x-kubernetes-preserve-unknown-fields'] === true) out.additionalProperties = true;
  else if (out.type === 'object' && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

/** kebab-case file name for a kind: ClusterPool → cluster-pool, CRCBundle → crc-bundle. */
export function kindFileName(kind: string): string {
  return kind
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

function constantName(kind: string): string {
  return kindFileName(kind).replace(/-/g, '_').toUpperCase();
}

async function compileSection(schema: SchemaNode | undefined, name: string): Promise<string> {
  if (!schema) return `export type ${name} = Record<string, never>;\n`;
  return compile(toJsonSchema(schema), name, {
    bannerComment: '',
    format: false,
    additionalProperties: false,
  });
}

/** The TypeScript module for one CRD: spec and status types, the object type and its resource facts. */
async function generateForCrd(crd: V1CustomResourceDefinition, source: string): Promise<string> {
  const { group, names, scope } = crd.spec;
  const version = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0]!;
  const root = (version.schema?.openAPIV3Schema ?? {}) as SchemaNode;
  const properties = (root.properties ?? {}) as Record<string, SchemaNode>;
  const required = (root.required ?? []) as string[];
  const kind = names.kind;
  const apiVersion = `${group}/${version.name}`;
  return [
    `// Generated from ${source} by \`npm run generate:types\`. Do not edit: change the CRD and regenerate.`,
    `import type { ObjectMeta } from '../../kube/objects.js';`,
    '',
    await compileSection(properties.spec, `${kind}Spec`),
    await compileSection(properties.status, `${kind}Status`),
    `/** ${(typeof root.description === 'string' ? root.description : kind).replace(/\s+/g, ' ')} */`,
    `export interface ${kind} {`,
    `  apiVersion: '${apiVersion}';`,
    `  kind: '${kind}';`,
    '  metadata?: ObjectMeta;',
    `  spec${required.includes('spec') ? '' : '?'}: ${kind}Spec;`,
    `  status?: ${kind}Status;`,
    '}',
    '',
    `/** How to address ${kind} objects on the API. */`,
    `export const ${constantName(kind)}_RESOURCE = {`,
    `  group: '${group}',`,
    `  version: '${version.name}',`,
    `  apiVersion: '${apiVersion}',`,
    `  kind: '${kind}',`,
    `  plural: '${names.plural}',`,
    `  namespaced: ${scope === 'Namespaced'},`,
    '} as const;',
    '',
  ].join('\n');
}

/**
 * Generates one module per CRD in `crdDir`, keyed by its path under `outDir`. The CRD manifests
 * are the single source of truth; the modules are formatted with the project's Prettier settings
 * so that regenerating gives byte-identical files.
 */
export async function generateApiTypes(
  crdDir: string,
  outDir: string,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const manifests = (await readdir(crdDir)).filter((file) => /\.ya?ml$/.test(file)).sort();
  for (const manifest of manifests) {
    const crd = parse(
      await readFile(path.join(crdDir, manifest), 'utf8'),
    ) as V1CustomResourceDefinition;
    // The folder also holds its kustomization.
    if (crd.kind !== 'CustomResourceDefinition') continue;
    const target = path.join(outDir, `${kindFileName(crd.spec.names.kind)}.ts`);
    const source = path.posix.join(path.basename(crdDir), manifest);
    const options = await prettier.resolveConfig(target);
    files.set(
      target,
      await prettier.format(await generateForCrd(crd, source), {
        ...options,
        parser: 'typescript',
      }),
    );
  }
  return files;
}
