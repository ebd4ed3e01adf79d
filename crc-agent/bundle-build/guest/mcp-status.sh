# guestcluster-build-step: mcp-status
# One poll of the master MachineConfigPool, which snc.sh waits for after the transient-ro
# MachineConfig and after pruning old rendered configs: updated when Updated is the only True
# condition; also names the rendered config, so a caller can wait for a new one (once the pull
# secret is emptied).
set -euo pipefail
export KUBECONFIG=/opt/kubeconfig
conditions="$(oc get mcp master -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}' 2>/dev/null || echo unreachable)"
if [[ "$(echo "$conditions" | xargs)" == "Updated" ]]; then
  echo "result mcp-updated true"
else
  echo "result mcp-updated false"
fi
echo "result mcp-conditions $(echo "$conditions" | xargs | tr ' ' ',')"
echo "result rendered $(oc get mcp master -o jsonpath='{.status.configuration.name}' 2>/dev/null || true)"
if [[ -n "$wanted" ]]; then
  sources=" $(oc get mcp master -o jsonpath='{.status.configuration.source[*].name}' 2>/dev/null || true) "
  if [[ "$sources" == *" $wanted "* ]]; then echo "result includes true"; else echo "result includes false"; fi
fi
