# guestcluster-build-step: os-cleanup
# P10, snc's cleanup_vm_image (createdisk-library.sh) between its two reboots
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): old deployments, the journal and
# the logs go, and so does the build's own work folder. Nothing starts on these boots: the kubelet
# is disabled. Idempotent. Usage: bash -s -- <work dir>
set -euo pipefail
work="${1:?work dir}"
rm -rf "$work"
rpm-ostree cleanup --rollback --base --repomd >/dev/null
journalctl --rotate >/dev/null 2>&1 || true
journalctl --vacuum-time=1s >/dev/null 2>&1 || true
find /var/log -type f -name '*.log' -delete
echo "result journal-files $(find /var/log/journal -type f -name '*.journal' 2>/dev/null | wc -l)"
