# guestcluster-build-step: seal-checklist
# The seal checklist (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10), run after P10
# and before P11: one line per check,
#   check <name> pass|fail <detail>
# and nothing else on stdout. It changes nothing on the disk: the cluster state is read from
# etcd, started offline for the checklist and stopped again, since the kubelet is down by now.
# The pull-secret marker (a piece of the real secret) arrives on one line of stdin after this
# script, and is never printed.
# Usage: bash -s -- <real epoch> <build-DNS IP> <CRC units carried> <layered packages, comma-separated or ->
#        [certificate rotation: Enabled|Disabled]
# With rotation Disabled the bundle keeps the installer's short-lived kubelet certificates by
# design (CRC's start renews them), so those two checks only report their NotAfter.
set -uo pipefail
# The body is one function, called on the last line: bash has then read all of it, and what
# follows on stdin is left for the script to read.
main() {
real="${1:?real epoch seconds}"
dns_ip="${2:?build DNS ClusterIP}"
units_expected="${3:-0}"
packages="${4:--}"
rotation="${5:-Enabled}"
IFS= read -r marker || true
node_ip=192.168.126.11

report() { # name, condition result (0 = pass), detail
  if [[ "$2" == 0 ]]; then echo "check $1 pass $3"; else echo "check $1 fail $3"; fi
}
is() { "$@" >/dev/null 2>&1; echo $?; }

# Node identity and certificates.
for which in client server; do
  pem="/var/lib/kubelet/pki/kubelet-$which-current.pem"
  not_after="$(openssl x509 -enddate -noout -in "$pem" 2>/dev/null | cut -d= -f2 | tr ' ' '_')"
  if [[ "$rotation" == "Disabled" ]]; then
    report "kubelet-$which-cert" "$([[ -n "$not_after" ]]; echo $?)" "rotation-disabled:${not_after:-none}"
  else
    report "kubelet-$which-cert" "$(is openssl x509 -checkend 2160000 -noout -in "$pem")" "$not_after"
  fi
done
skew=$(($(date -u +%s) - real))
report clock "$([[ ${skew#-} -le 60 ]]; echo $?)" "skew=${skew}s"

# Disk-side pull secret, and the marker grep.
report kubelet-pull-secret "$([[ "$(tr -d '[:space:]' </var/lib/kubelet/config.json 2>/dev/null)" == "{}" ]]; echo $?)" /var/lib/kubelet/config.json
if [[ -z "${marker:-}" ]]; then
  report pull-secret-marker 1 "no-marker-on-stdin"
else
  hits="$(grep -rlsF -- "$marker" /etc /var/lib/kubelet /var/home /root /opt /var/lib/containers /run/containers 2>/dev/null | head -n 5 | tr '\n' ',' | sed 's/,$//')"
  report pull-secret-marker "$([[ -z "$hits" ]]; echo $?)" "${hits:-none}"
fi
unset marker

# Guest OS sealing (os-seal).
report kubelet-disabled "$([[ "$(systemctl is-enabled kubelet.service 2>/dev/null)" == disabled ]]; echo $?)" "$(systemctl is-enabled kubelet.service 2>/dev/null)"
report nodeip-conf "$(is grep -qx "Environment=\"KUBELET_NODE_IP=$node_ip\"" /etc/systemd/system/kubelet.service.d/80-nodeip.conf)" 80-nodeip.conf
report crc-env "$(is grep -qx 'CRC_SELF_SUFFICIENT=0' /etc/sysconfig/crc-env)" /etc/sysconfig/crc-env
enabled=0
for unit in /etc/systemd/system/crc-*.service /etc/systemd/system/ocp-*.service; do
  [[ -f "$unit" ]] && [[ "$(systemctl is-enabled "$(basename "$unit")" 2>/dev/null)" == enabled ]] && enabled=$((enabled + 1))
done
report crc-units "$([[ $enabled -ge $units_expected ]]; echo $?)" "enabled=$enabled expected=$units_expected"
report tap0 "$(is nmcli -t -f NAME connection show tap0)" tap0
report crio-wipe-disabled "$(is grep -q '^ExecStart=/bin/true' /etc/systemd/system/crio-wipe.service.d/10-guestcluster-keep-images.conf)" crio-wipe
if [[ "$packages" == "-" ]]; then
  report layered-packages 0 none-requested
else
  missing=""
  for package in ${packages//,/ }; do rpm -q "$package" >/dev/null 2>&1 || missing="$missing,$package"; done
  report layered-packages "$([[ -z "$missing" ]]; echo $?)" "missing=${missing#,}"
fi

# Cleanup (os-cleanup, cloud-init-seal) and the files CRC needs.
# Boots are the lines with an index and a boot id (newer systemd prints a legend line too).
boots="$(journalctl --list-boots --no-pager 2>/dev/null | grep -cE '^ *-?[0-9]+ [0-9a-f]{32}' || true)"
logs="$(find /var/log -type f -name '*.log' 2>/dev/null | wc -l)"
report journal-clean "$([[ ${boots:-0} -le 1 && $logs -eq 0 ]]; echo $?)" "boots=${boots:-0} logs=$logs"
if systemctl list-unit-files cloud-init.service >/dev/null 2>&1; then
  report cloud-init-clean "$([[ ! -e /var/lib/cloud/instance ]]; echo $?)" /var/lib/cloud
else
  report cloud-init-clean 0 not-layered
fi
report build-dns-absent "$(! grep -rqsF -- "$dns_ip" /etc/NetworkManager/system-connections; echo $?)" "$dns_ip"
probe=/Users/.guestcluster-seal-check
report users-writable "$(is sh -c "mkdir -p $probe && rmdir $probe")" /Users
report opt-kubeconfig "$([[ -s /opt/kubeconfig ]]; echo $?)" /opt/kubeconfig
report routes-controller "$([[ -s /opt/crc/routes-controller.yaml ]]; echo $?)" /opt/crc/routes-controller.yaml

# Cluster state, read from etcd offline.
image="$(grep -m1 -oE 'image: *[^ ]+' /etc/kubernetes/manifests/etcd-pod.yaml 2>/dev/null | awk '{print $2}' | tr -d '"')"
if [[ -z "$image" ]] || ! podman run --rm -d --name guestcluster-etcd-check --network host --privileged \
  -v /var/lib/etcd:/var/lib/etcd:z --entrypoint etcd "$image" --data-dir /var/lib/etcd \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 >/dev/null 2>&1; then
  for name in etcd-peer-url node-internal-ip pull-secret-api kubeadmin-removed htpass-secret oauth cluster-id-empty operators-stable etcd-pods etcd-leases; do
    report "$name" 1 etcd-not-started
  done
  exit 0
fi
trap 'podman stop guestcluster-etcd-check >/dev/null 2>&1 || true' EXIT
ctl() { podman exec -e ETCDCTL_API=3 guestcluster-etcd-check etcdctl --endpoints=http://127.0.0.1:2379 "$@"; }
for _ in $(seq 1 30); do ctl endpoint health >/dev/null 2>&1 && break; sleep 2; done
value() { ctl get "$1" --print-value-only 2>/dev/null; }
exists() { [[ -n "$(ctl get "$1" --keys-only 2>/dev/null)" ]]; echo $?; }
report etcd-peer-url "$(ctl member list 2>/dev/null | grep -q "https://$node_ip:2380"; echo $?)" "$node_ip"
report node-internal-ip "$(value /kubernetes.io/minions/crc | grep -aq "$node_ip"; echo $?)" "crc=$node_ip"
report pull-secret-api "$(value /kubernetes.io/secrets/openshift-config/pull-secret | grep -aqP '\.dockerconfigjson\x12\x02\{\}'; echo $?)" openshift-config/pull-secret
report kubeadmin-removed "$([[ "$(exists /kubernetes.io/secrets/kube-system/kubeadmin)" != 0 ]]; echo $?)" kube-system/kubeadmin
report htpass-secret "$(exists /kubernetes.io/secrets/openshift-config/htpass-secret)" openshift-config/htpass-secret
report oauth "$(value /kubernetes.io/config.openshift.io/oauths/cluster | grep -q htpass-secret; echo $?)" oauth/cluster
cluster_id="$(value /kubernetes.io/config.openshift.io/clusterversions/version | jq -r '.spec.clusterID // ""' 2>/dev/null)"
report cluster-id-empty "$([[ -z "$cluster_id" ]]; echo $?)" "clusterID=${cluster_id:-empty}"
unstable="$(ctl get /kubernetes.io/config.openshift.io/clusteroperators/ --prefix --print-value-only 2>/dev/null |
  jq -r 'select(([.status.conditions[]? | select((.type=="Available" and .status!="True") or ((.type=="Degraded" or .type=="Progressing") and .status!="False"))] | length) > 0) | .metadata.name' 2>/dev/null | tr '\n' ',' | sed 's/,$//')"
report operators-stable "$([[ -z "$unstable" ]]; echo $?)" "unstable=${unstable:-none}"
pods="$(ctl get /kubernetes.io/pods/ --prefix --keys-only | grep -v '^$' | grep -vc '^/kubernetes.io/pods/openshift-network' || true)"
report etcd-pods "$([[ ${pods:-0} -eq 0 ]]; echo $?)" "outside-openshift-network=${pods:-0}"
leases="$(ctl get /kubernetes.io/leases --prefix --keys-only | grep -vc '^$' || true)"
report etcd-leases "$([[ ${leases:-0} -eq 0 ]]; echo $?)" "leases=${leases:-0}"
}
main "$@"
