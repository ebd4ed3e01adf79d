import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The guest-side scripts, by the step marker on their first line (`guest/<name>.sh`). */
export const GUEST_SCRIPTS = [
  'installer-clock',
  'installer-ignition',
  'install-status',
  'cluster-status',
  'cluster-stable',
  'mcp-status',
  'day2-config',
  'cert-rotation',
  'customize',
  'image-pin',
  'pull-secret-remove',
  'image-prune',
  'os-seal',
  'os-cleanup',
  'etcd-offline',
  'cloud-init-seal',
  'seal-checklist',
  'zero-fill',
] as const;
export type GuestScript = (typeof GUEST_SCRIPTS)[number];

/** The first line of every guest script: how a guest (and a reader of its log) tells them apart. */
export const STEP_MARKER = '# guestcluster-build-step: ';

/**
 * The scripts' folder: next to this file in the source tree, and at the same place under the
 * project root when running from `dist/` (the image copies it there).
 */
export function guestScriptsDir(): string {
  const candidates = ['./guest/', '../../../crc-agent/bundle-build/guest/'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find((dir) => existsSync(`${dir}installer-clock.sh`));
  if (!found) throw new Error(`the guest scripts are missing (looked in ${candidates.join(', ')})`);
  return found;
}

const cache = new Map<GuestScript, string>();

/** A script's text; its first line must be its marker. */
export function guestScript(name: GuestScript): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(`${guestScriptsDir()}${name}.sh`, 'utf8');
    const first = text.slice(0, text.indexOf('\n'));
    if (first !== `${STEP_MARKER}${name}`)
      throw new Error(`guest script ${name}.sh does not start with "${STEP_MARKER}${name}"`);
    cache.set(name, text);
  }
  return text;
}

/** The step name of a script text, from its first line; undefined for other input. */
export function scriptMarker(text: string): string | undefined {
  const first = text.slice(0, Math.max(0, text.indexOf('\n')));
  return first.startsWith(STEP_MARKER) ? first.slice(STEP_MARKER.length).trim() : undefined;
}

/** One shell word: single-quoted unless it is plain. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that runs a script sent on stdin, as root, with its arguments. */
export function scriptCommand(args: readonly string[]): string {
  return ['sudo', 'bash', '-s', '--', ...args.map(shellWord)].join(' ');
}
