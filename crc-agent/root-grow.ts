import type { GuestShell } from './guest-shell.js';

/**
 * Grows the root partition and its XFS filesystem to the size of the cloned disk. Safe to repeat:
 * growpart's "no room to grow" (status 1) counts as success. RHCOS mounts /sysroot read-only in
 * the host namespace, so the remount happens in a private mount namespace.
 */
export const ROOT_GROW_SCRIPT = `root_partition=$(readlink -f /dev/disk/by-partlabel/root)
root_partition_name=$(basename "$root_partition")
root_disk=$(lsblk --noheadings --raw --output PKNAME "$root_partition")
partition_number=$(cat "/sys/class/block/\${root_partition_name}/partition" 2>/dev/null || true)
if [ -z "$root_disk" ] || [ -z "$partition_number" ]; then
  echo "could not identify the root disk and partition (partition=$root_partition disk=$root_disk number=$partition_number)" >&2
  exit 1
fi
growpart_status=0
growpart "/dev/$root_disk" "$partition_number" || growpart_status=$?
if [ "$growpart_status" -eq 1 ]; then
  echo "root partition already uses all available disk space"
elif [ "$growpart_status" -ne 0 ]; then
  echo "growpart failed with status $growpart_status" >&2
  exit "$growpart_status"
fi
unshare --mount sh -c "mount -o remount,rw /sysroot && xfs_growfs /sysroot"`;

/** The whole script as one privileged command (single quotes are not used inside it). */
export function rootGrowCommand(): string {
  return `sh -ceu '${ROOT_GROW_SCRIPT}'`;
}

export async function growRootFilesystem(shell: GuestShell): Promise<void> {
  try {
    await shell.privileged(rootGrowCommand());
  } catch (error) {
    throw new Error('resizing RHCOS root partition and XFS filesystem', { cause: error });
  }
}
