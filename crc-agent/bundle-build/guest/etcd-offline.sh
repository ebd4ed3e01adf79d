# guestcluster-build-step: etcd-offline
# P10, snc's createdisk.sh cleaning etcd offline, plus a compaction
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): with the kubelet down, run the
# local etcd image once on /var/lib/etcd, delete pod keys outside openshift-network* and every
# lease, compact and defragment, then stop. Idempotent: deleting nothing is fine.
set -euo pipefail
manifest=/etc/kubernetes/manifests/etcd-pod.yaml
image="$(grep -m1 -oE 'image: *[^ ]+' "$manifest" | awk '{print $2}' | tr -d '"')"
[[ -n "$image" ]] || { echo "error etcd-image none in $manifest" >&2; exit 2; }
podman rm -f guestcluster-etcd >/dev/null 2>&1 || true
podman run --rm -d --name guestcluster-etcd --network host --privileged \
  -v /var/lib/etcd:/var/lib/etcd:z --entrypoint etcd "$image" \
  --data-dir /var/lib/etcd --listen-client-urls http://127.0.0.1:2379 \
  --advertise-client-urls http://127.0.0.1:2379 >/dev/null
trap 'podman stop guestcluster-etcd >/dev/null 2>&1 || true' EXIT
ctl() { podman exec -e ETCDCTL_API=3 guestcluster-etcd etcdctl --endpoints=http://127.0.0.1:2379 "$@"; }
for _ in $(seq 1 30); do ctl endpoint health >/dev/null 2>&1 && break; sleep 2; done
ctl get /kubernetes.io/pods/ --prefix --keys-only | grep -v '^$' |
  grep -v '^/kubernetes.io/pods/openshift-network' | while read -r key; do ctl del "$key" >/dev/null; done
ctl del /kubernetes.io/leases --prefix >/dev/null
revision="$(ctl endpoint status -w json | grep -oE '"revision":[0-9]+' | head -n1 | cut -d: -f2)"
[[ -n "$revision" ]] && ctl compaction --physical "$revision" >/dev/null
ctl defrag >/dev/null
echo "result etcd-pods-outside-network $(ctl get /kubernetes.io/pods/ --prefix --keys-only | grep -v '^$' | grep -vc '^/kubernetes.io/pods/openshift-network' || true)"
echo "result etcd-leases $(ctl get /kubernetes.io/leases --prefix --keys-only | grep -vc '^$' || true)"
