# guestcluster-build-step: install-status
# P5, target VM: one look at how far bootstrap-in-place is, the facts the runbook's sections 3 to 5
# look at (docs/bundle-build.md#3-the-live-iso-boots-from-the-cdrom-p3-p4-p5-before-the-reboot).
# Prints one "result <key> <value>" line per fact; changes nothing, so it is safe to repeat.
set -euo pipefail
if [[ -e /run/ostree-live ]]; then phase=live; else phase=installed; fi
echo "result phase $phase"
echo "result clock $(date -u +%s)"
echo "result hostname $(hostname)"
echo "result eth10 $(ip -4 -o addr show dev eth10 2>/dev/null | awk '{print $4}' | head -n1)"
echo "result nameserver $(awk '$1=="nameserver"{print $2; exit}' /etc/resolv.conf)"
echo "result search $(awk '$1=="search"{$1=""; sub(/^ /,""); print; exit}' /etc/resolv.conf)"
for unit in bootkube.service install-to-disk.service; do
  echo "result ${unit%.service} $(systemctl show "$unit" -p ActiveState --value 2>/dev/null || echo unknown)"
done
if [[ -e /etc/kubernetes/bootstrap-secrets ]]; then
  echo "result bootstrap-secrets present"
else
  echo "result bootstrap-secrets absent"
fi
if [[ -s /opt/kubeconfig ]]; then echo "result kubeconfig present"; else echo "result kubeconfig absent"; fi
echo "result progress $(journalctl -u bootkube.service -n 1 -o cat --no-pager 2>/dev/null | tr -s '[:space:]' ' ' | cut -c1-200)"
