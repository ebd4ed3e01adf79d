# guestcluster-build-step: cluster-status
# P5 (after the reboot), P7, P8: the cluster as the guest's own oc sees it through
# /opt/kubeconfig: every oc call runs in the guest
# (docs/adr/0032-bundle-build-guest-side.md#decision). Read-only; safe to repeat.
set -euo pipefail
export KUBECONFIG=/opt/kubeconfig
available="$(oc get clusterversion version \
  -o jsonpath='{.status.conditions[?(@.type=="Available")].status}' 2>/dev/null || true)"
echo "result clusterversion-available ${available:-Unknown}"
echo "result version $(oc get clusterversion version -o jsonpath='{.status.desired.version}' 2>/dev/null || true)"
if oc -n openshift-console get route console >/dev/null 2>&1; then
  echo "result console-route present"
else
  echo "result console-route absent"
fi
echo "result node-ready $(oc get node crc -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null || echo Unknown)"
echo "result node-ip $(oc get node crc -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}' 2>/dev/null || true)"
peer="$(oc -n openshift-etcd get configmap etcd-endpoints -o jsonpath='{.data}' 2>/dev/null | grep -oE '[0-9]+(\.[0-9]+){3}' | head -n1 || true)"
echo "result etcd-peer ${peer}"
