import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** One manifest file of a mounted ConfigMap: `<NN>-<object>-<key>`, its content. */
export interface ManifestFile {
  name: string;
  content: string;
}

/**
 * The manifests under a mount folder, as the contract lays them out: one folder per object
 * (`<NN>-<name>/`, in spec order), one file per data key. Names starting with `.` are the
 * volume's own bookkeeping (`..data`, timestamped folders) and are skipped. A missing folder
 * holds no manifests.
 */
export async function readManifestFolders(dir: string): Promise<ManifestFile[]> {
  const folders = await readdir(dir).catch(() => [] as string[]);
  const files: ManifestFile[] = [];
  for (const folder of folders.filter((name) => !name.startsWith('.')).sort()) {
    const keys = await readdir(path.join(dir, folder)).catch(() => [] as string[]);
    for (const key of keys.filter((name) => !name.startsWith('.')).sort())
      files.push({
        name: `${folder}-${key}`,
        content: await readFile(path.join(dir, folder, key), 'utf8'),
      });
  }
  return files;
}
