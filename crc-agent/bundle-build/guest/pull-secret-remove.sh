# guestcluster-build-step: pull-secret-remove
# P9, as snc.sh empties the pull secret
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): replace
# openshift-config/pull-secret with {}; the MCO then renders a new config and rewrites
# /var/lib/kubelet/config.json without a reboot. Prints the rendered config before the change, so
# the agent can wait for a new one (mcp-status). Idempotent.
set -euo pipefail
export KUBECONFIG=/opt/kubeconfig
echo "result rendered-before $(oc get mcp master -o jsonpath='{.status.configuration.name}')"
oc -n openshift-config set data secret/pull-secret --from-literal=.dockerconfigjson='{}' >/dev/null
# Only whether each copy is empty is printed: never a secret's content.
if [[ "$(oc -n openshift-config get secret pull-secret -o jsonpath='{.data.\.dockerconfigjson}' | base64 --decode)" == "{}" ]]; then
  echo "result pull-secret empty"
else
  echo "result pull-secret not-empty"
fi
if [[ "$(tr -d '[:space:]' </var/lib/kubelet/config.json)" == "{}" ]]; then
  echo "result kubelet-config empty"
else
  echo "result kubelet-config not-empty"
fi
