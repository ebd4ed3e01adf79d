# guestcluster-build-step: image-prune
# P9, the end of snc.sh (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced), after the
# cluster settled without the pull secret: no Succeeded pods, no old rendered configs, CRI-O's
# store pruned to what runs (plus the pinned image), the pin removed, /Users writable. Idempotent.
set -euo pipefail
export KUBECONFIG=/opt/kubeconfig
oc delete pods -A --field-selector=status.phase=Succeeded --ignore-not-found >/dev/null
oc adm prune renderedmachineconfigs --confirm >/dev/null
crictl rmi --prune >/dev/null 2>&1 || true
podman rm -f baremetal_runtimecfg >/dev/null 2>&1 || true
probe="/Users/.guestcluster-write-check"
mkdir -p "$probe" && rmdir "$probe"
echo "result users-writable true"
echo "result images $(crictl images -q 2>/dev/null | wc -l)"
