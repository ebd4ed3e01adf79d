# guestcluster-build-step: installer-clock
# P2, installer VM (docs/bundle-build.md#2-the-ignition-is-generated-in-the-past-p2): keep the
# clock from being corrected, set it to the epoch the Job computed on real time (real now - D), and
# report what the VM now reads. Idempotent: setting the same target twice only moves the clock to
# it again.
# Usage: bash -s -- <target epoch seconds>
set -euo pipefail
target="${1:?target epoch seconds}"
[[ "$target" =~ ^[0-9]+$ ]] || { echo "error target-epoch not a number: $target" >&2; exit 2; }

timedatectl set-ntp false 2>/dev/null || true
for unit in chronyd.service systemd-timesyncd.service; do
  if systemctl list-unit-files "$unit" >/dev/null 2>&1; then
    systemctl stop "$unit" 2>/dev/null || true
    systemctl mask "$unit" >/dev/null 2>&1 || true
  fi
done
date -u -s "@${target}" >/dev/null
# Written to the RTC too, so a reboot of this short-lived VM keeps the shifted time.
hwclock --systohc --utc 2>/dev/null || true
echo "result clock $(date -u +%s)"
echo "result ntp $(timedatectl show -p NTP --value 2>/dev/null || echo unknown)"
