# guestcluster-build-step: zero-fill
# P11, the step that replaces guestfish's zero-free-space in snc's sparsify
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): fill the root filesystem's free
# space with zeros, sync, delete the fill file, trim. /var lives on the root filesystem, so the
# fill file goes there. Idempotent: a leftover fill file is replaced.
set -euo pipefail
fill=/var/guestcluster-zero-fill
rm -f "$fill"
dd if=/dev/zero of="$fill" bs=4M status=none 2>/dev/null || true
sync
bytes="$(stat -c %s "$fill" 2>/dev/null || echo 0)"
rm -f "$fill"
sync
fstrim -av >/dev/null 2>&1 || true
echo "result zeroed-bytes $bytes"
