import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { generateApiTypes, kindFileName } from './type-generation.js';

const root = projectRoot();
const generatedDir = path.join(root, 'client', 'api', 'generated');

describe('generated API types', () => {
  it('match the CRDs in crds/ (run `npm run generate:types` after changing a CRD)', async () => {
    const expected = await generateApiTypes(path.join(root, 'crds'), generatedDir);
    const committed = (await readdir(generatedDir)).sort();
    expect(committed).toEqual([...expected.keys()].map((file) => path.basename(file)).sort());
    for (const [file, content] of expected) {
      expect({ file: path.relative(root, file), content: await readFile(file, 'utf8') }).toEqual({
        file: path.relative(root, file),
        content,
      });
    }
  });

  it('name files after kinds in kebab case', () => {
    expect(['ClusterPool', 'CRCBundle', 'ClusterInstance'].map(kindFileName)).toEqual([
      'cluster-pool',
      'crc-bundle',
      'cluster-instance',
    ]);
  });
});
