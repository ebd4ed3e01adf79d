# guestcluster-build-step: cert-rotation
# P7, one pass of the loop of snc's renew_certificates (snc-library.sh; see
# docs/bundle-build.md#6-certificate-rotation-in-the-present-p6-p7): while either kubelet
# certificate expires within 25 days, approve every pending CSR. The agent repeats the pass (10 s
# apart, 60 times at most) until both certificates pass. Approving an approved CSR is a no-op.
set -euo pipefail
export KUBECONFIG=/opt/kubeconfig
check() {
  if openssl x509 -checkend 2160000 -noout -in "/var/lib/kubelet/pki/kubelet-$1-current.pem" >/dev/null 2>&1; then
    echo valid
  else
    echo expiring
  fi
}
client="$(check client)"
server="$(check server)"
approved=0
if [[ "$client" != valid || "$server" != valid ]]; then
  pending="$(oc get csr -o go-template='{{range .items}}{{if not .status}}{{.metadata.name}}{{"\n"}}{{end}}{{end}}' 2>/dev/null || true)"
  for csr in $pending; do
    oc adm certificate approve "$csr" >/dev/null 2>&1 && approved=$((approved + 1))
  done
fi
echo "result kubelet-client $client"
echo "result kubelet-server $server"
echo "result approved $approved"
for which in client server; do
  echo "result kubelet-$which-not-after $(openssl x509 -enddate -noout -in "/var/lib/kubelet/pki/kubelet-$which-current.pem" 2>/dev/null | cut -d= -f2 | tr ' ' '_')"
done
echo "result clock $(date -u +%s)"
