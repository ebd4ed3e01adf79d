# guestcluster-build-step: customize
# P8, what snc.sh does from the cred manager's removal to chronyd's return, and its proxy removal
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced), in snc's order, each change
# idempotent (apply, merge patches, deletes that ignore what is gone). The htpasswd file (bcrypt
# lines, built by the agent) arrives base64
# on one line of stdin after this script. Post-install manifests, when there are any, were
# streamed into <work>/post-install first.
# Usage: bash -s -- <work dir> <proxy used: true|false>
set -euo pipefail
# The body is one function, called on the last line: bash has then read all of it, and what
# follows on stdin is left for the script to read.
main() {
export KUBECONFIG=/opt/kubeconfig
work="${1:?work dir}"
proxy="${2:-false}"
IFS= read -r htpasswd_b64 || true
[[ -n "${htpasswd_b64:-}" ]] || { echo "error htpasswd none arrived on stdin" >&2; exit 2; }

# The credential manager of P6 has done its job.
oc -n openshift-machine-config-operator delete daemonset kubelet-bootstrap-cred-manager \
  --ignore-not-found --wait=true --timeout=60s >/dev/null
oc adm policy remove-cluster-role-from-user cluster-admin -z kubelet-bootstrap-cred-manager \
  -n openshift-machine-config-operator >/dev/null 2>&1 || true
oc adm policy remove-scc-from-user privileged -z kubelet-bootstrap-cred-manager \
  -n openshift-machine-config-operator >/dev/null 2>&1 || true
oc -n openshift-machine-config-operator delete serviceaccount kubelet-bootstrap-cred-manager \
  --ignore-not-found >/dev/null
# The hostname from DHCP (crc) becomes the static one.
hostnamectl set-hostname "$(hostname)"
# The four operators snc leaves out stay unmanaged (snc's cvo-overrides-after-first-run.yaml).
overrides='[{"kind":"Deployment","group":"apps","name":"cluster-monitoring-operator","namespace":"openshift-monitoring","unmanaged":true},{"kind":"ClusterOperator","group":"config.openshift.io","name":"monitoring","namespace":"","unmanaged":true},{"kind":"Deployment","group":"apps","name":"cloud-credential-operator","namespace":"openshift-cloud-credential-operator","unmanaged":true},{"kind":"ClusterOperator","group":"config.openshift.io","name":"cloud-credential","namespace":"","unmanaged":true},{"kind":"Deployment","group":"apps","name":"cluster-autoscaler-operator","namespace":"openshift-machine-api","unmanaged":true},{"kind":"ClusterOperator","group":"config.openshift.io","name":"cluster-autoscaler","namespace":"","unmanaged":true},{"kind":"Deployment","group":"apps","name":"cluster-cloud-controller-manager-operator","namespace":"openshift-cloud-controller-manager-operator","unmanaged":true},{"kind":"ClusterOperator","group":"config.openshift.io","name":"cloud-controller-manager","namespace":"","unmanaged":true}]'
oc patch clusterversion version --type merge -p "{\"spec\":{\"overrides\":${overrides}}}" >/dev/null
# One router replica; the image registry Managed, with its default route.
oc -n openshift-ingress-operator patch ingresscontroller default --type merge -p '{"spec":{"replicas":1}}' >/dev/null
oc patch configs.imageregistry.operator.openshift.io cluster --type merge \
  -p '{"spec":{"managementState":"Managed","defaultRoute":true}}' >/dev/null
# htpasswd users, the OAuth CR, kubeadmin as cluster-admin, no kube-system/kubeadmin.
echo "$htpasswd_b64" | base64 --decode >"$work/htpasswd"
chmod 0600 "$work/htpasswd"
oc -n openshift-config create secret generic htpass-secret --from-file=htpasswd="$work/htpasswd" \
  --dry-run=client -o yaml | oc apply -f - >/dev/null
rm -f "$work/htpasswd"
unset htpasswd_b64
oc apply -f - >/dev/null <<'YAML'
apiVersion: config.openshift.io/v1
kind: OAuth
metadata: {name: cluster}
spec:
  tokenConfig: {accessTokenMaxAgeSeconds: 31536000}
  identityProviders:
    - name: developer
      mappingMethod: claim
      type: HTPasswd
      htpasswd: {fileData: {name: htpass-secret}}
YAML
oc adm policy add-cluster-role-to-user cluster-admin kubeadmin >/dev/null 2>&1
oc -n kube-system delete secret kubeadmin --ignore-not-found >/dev/null
# The banner, and no cluster ID (CRC sets one at start).
oc apply -f - >/dev/null <<'YAML'
apiVersion: console.openshift.io/v1
kind: ConsoleNotification
metadata: {name: security-notice}
spec:
  text: OpenShift Local cluster for development and testing only. Do not use it for production workloads.
  location: BannerTop
YAML
oc patch clusterversion version --type merge -p '{"spec":{"clusterID":""}}' >/dev/null
# The registry route trusts the router CA.
oc -n openshift-ingress-operator get secret router-ca -o jsonpath='{.data.tls\.crt}' | base64 --decode >"$work/router-ca.crt"
oc -n openshift-config create configmap registry-certs \
  --from-file=default-route-openshift-image-registry.apps-crc.testing="$work/router-ca.crt" \
  --dry-run=client -o yaml | oc apply -f - >/dev/null
oc patch image.config.openshift.io cluster --type merge \
  -p '{"spec":{"additionalTrustedCA":{"name":"registry-certs"}}}' >/dev/null
# The bundle's own post-install manifests (spec.build.postInstallManifestRefs).
if compgen -G "$work/post-install/*" >/dev/null; then
  oc apply -f "$work/post-install/" >/dev/null
  echo "result post-install applied"
fi
# chronyd comes back in the sealed image (the node reboots).
oc delete machineconfig chronyd-mask --ignore-not-found >/dev/null
# No proxy in the bundle (snc.sh removes it once the pull secret is gone).
if [[ "$proxy" == "true" ]]; then
  oc patch proxy cluster --type json -p '[{"op":"remove","path":"/spec/httpProxy"},{"op":"remove","path":"/spec/httpsProxy"},{"op":"remove","path":"/spec/noProxy"}]' >/dev/null 2>&1 || true
fi
echo "result customized true"
}
main "$@"
