# guestcluster-build-step: image-pin
# P9, as snc.sh does before it removes the pull secret
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): keep the baremetal-runtimecfg
# image through the prune with a podman container made with the kubelet's pull secret. Must run
# before the pull secret is removed.
# Idempotent: an existing container of that name is kept.
# Usage: bash -s -- <baremetal-runtimecfg pullspec>
set -euo pipefail
image="${1:?baremetal-runtimecfg pullspec}"
if ! podman container exists baremetal_runtimecfg; then
  podman create --authfile /var/lib/kubelet/config.json --name baremetal_runtimecfg "$image" >/dev/null
fi
echo "result pinned $(podman container inspect baremetal_runtimecfg --format '{{.ImageName}}')"
