# guestcluster-build-step: cluster-stable
# One poll of snc's wait_till_cluster_stable (snc-library.sh), which snc.sh runs after its
# customizations and again without the pull secret: Failed pods are deleted, then every
# ClusterOperator must be Available, not Progressing and not Degraded. The agent asks for three
# stable polls in a row. Usage: bash -s -- [namespace to ignore ...]
set -euo pipefail
export KUBECONFIG=/opt/kubeconfig
oc delete pods -A --field-selector=status.phase=Failed --ignore-not-found >/dev/null 2>&1 || true
unstable="$(oc get clusteroperators -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.conditions[?(@.type=="Available")].status}{" "}{.status.conditions[?(@.type=="Progressing")].status}{" "}{.status.conditions[?(@.type=="Degraded")].status}{"\n"}{end}' |
  awk '$2!="True" || $3!="False" || $4!="False" {print $1}' | tr '\n' ',' | sed 's/,$//')" ||
  { echo "result operators-stable false"; echo "result unstable api-unreachable"; exit 0; }
ignored=" $* "
bad_pods="$(oc get pods -A --no-headers 2>/dev/null |
  awk -v ignored="$ignored" 'index(ignored, " " $1 " ")==0 && $4!="Running" && $4!="Completed" {print $1 "/" $2}' | head -n 5 | tr '\n' ',' | sed 's/,$//')"
if [[ -z "$unstable" && -z "$bad_pods" ]]; then
  echo "result operators-stable true"
else
  echo "result operators-stable false"
  echo "result unstable ${unstable}${bad_pods:+ pods:$bad_pods}"
fi
