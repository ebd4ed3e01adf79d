# guestcluster-build-step: cloud-init-seal
# P10, what snc's createdisk.sh does to cloud-init before its last shutdown
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): cloud-init, when layered, is
# enabled and left clean with no network configuration, growpart on /sysroot and the hostname
# kept; the build's proxy environment goes. Idempotent.
# Usage: bash -s -- <proxy used: true|false>
set -euo pipefail
proxy="${1:-false}"
if systemctl list-unit-files cloud-init.service >/dev/null 2>&1; then
  systemctl enable cloud-init.service cloud-config.service cloud-final.service >/dev/null 2>&1
  install -d -m 0755 /etc/cloud/cloud.cfg.d
  printf 'network: {config: disabled}\n' >/etc/cloud/cloud.cfg.d/05_disable-network.cfg
  printf 'growpart:\n  mode: auto\n  devices: ["/sysroot"]\nresize_rootfs: false\n' >/etc/cloud/cloud.cfg.d/10_disk_resize.cfg
  printf 'preserve_hostname: true\n' >/etc/cloud/cloud.cfg.d/20_preserve_hostname.cfg
  cloud-init clean --logs >/dev/null
  echo "result cloud-init sealed"
else
  echo "result cloud-init absent"
fi
if [[ "$proxy" == "true" ]]; then rm -f /etc/environment; fi
echo "result proxy-env $([[ -e /etc/environment && -s /etc/environment ]] && echo present || echo absent)"
