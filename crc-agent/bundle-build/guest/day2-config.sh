# guestcluster-build-step: day2-config
# P6, what snc.sh does right after the install
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): the bootstrap-credential manager, a
# fresh CSR signer and the transient-ro MachineConfig. The agent then waits for a stable cluster
# and an Updated pool.
# Idempotent: apply, and deletes that ignore what is already gone.
# Usage: bash -s -- <cli image> [rotation: Enabled|Disabled]
set -euo pipefail
export KUBECONFIG=/opt/kubeconfig
cli_image="${1:?cli image (oc adm release info --image-for=cli)}"
rotation="${2:-Enabled}"

if [[ "$rotation" == "Enabled" ]]; then
  # Every minute, point the kubelet's bootstrap kubeconfig at the non-expiring token of the
  # node-bootstrapper-token Secret and the internal API, so the kubelet can bootstrap again once
  # its 24-hour client certificate has expired (P7). Its own ServiceAccount may read that Secret
  # and run privileged; customize (P8) removes the DaemonSet, the account and its grants.
  oc -n openshift-machine-config-operator create serviceaccount kubelet-bootstrap-cred-manager \
    --dry-run=client -o yaml | oc apply -f - >/dev/null
  oc adm policy add-cluster-role-to-user cluster-admin -z kubelet-bootstrap-cred-manager \
    -n openshift-machine-config-operator >/dev/null
  oc adm policy add-scc-to-user privileged -z kubelet-bootstrap-cred-manager \
    -n openshift-machine-config-operator >/dev/null
  oc apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kubelet-bootstrap-cred-manager
  namespace: openshift-machine-config-operator
  labels: {k8s-app: kubelet-bootstrap-cred-manager}
spec:
  selector:
    matchLabels: {k8s-app: kubelet-bootstrap-cred-manager}
  template:
    metadata:
      labels: {k8s-app: kubelet-bootstrap-cred-manager}
    spec:
      serviceAccountName: kubelet-bootstrap-cred-manager
      nodeSelector: {node-role.kubernetes.io/master: ""}
      tolerations: [{operator: Exists}]
      priorityClassName: system-node-critical
      containers:
        - name: kubelet-bootstrap-cred-manager
          image: ${cli_image}
          securityContext: {privileged: true}
          command: ["/bin/bash", "-ec"]
          args:
            - |
              while true; do
                token=\$(oc -n openshift-machine-config-operator get secret node-bootstrapper-token -o jsonpath='{.data.token}' | base64 -d)
                # The server (api-int) and its CA stay those of the kubeconfig the installer wrote.
                ca=\$(awk '/certificate-authority-data:/ {print \$2; exit}' /etc/kubernetes/kubeconfig)
                server=\$(awk '/server:/ {print \$2; exit}' /etc/kubernetes/kubeconfig)
                printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: %s\n    certificate-authority-data: %s\nusers:\n- name: kubelet\n  user:\n    token: %s\ncontexts:\n- name: kubelet\n  context: {cluster: local, user: kubelet}\ncurrent-context: kubelet\n' "\$server" "\$ca" "\$token" > /etc/kubernetes/kubeconfig.new
                mv /etc/kubernetes/kubeconfig.new /etc/kubernetes/kubeconfig
                sleep 60
              done
          volumeMounts: [{name: kubernetes, mountPath: /etc/kubernetes}]
      volumes: [{name: kubernetes, hostPath: {path: /etc/kubernetes}}]
YAML
  echo "result cred-manager applied"
  oc -n openshift-machine-config-operator rollout status daemonset/kubelet-bootstrap-cred-manager --timeout=5m >/dev/null
  # KCMO mints a new CSR signer once these are gone.
  oc -n openshift-kube-controller-manager-operator delete secret csr-signer-signer csr-signer --ignore-not-found >/dev/null
  echo "result csr-signer deleted"
fi

# snc's 99-enable-transient-ro.yaml: a transient-ro root (macOS file sharing under CRC needs
# /Users).
oc apply -f - >/dev/null <<'YAML'
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-enable-transient-ro
  labels: {machineconfiguration.openshift.io/role: master}
spec:
  config:
    ignition: {version: 3.2.0}
    storage:
      files:
        - path: /etc/ostree/prepare-root.conf
          mode: 420
          overwrite: true
          contents: {source: "data:,%5Broot%5D%0Atransient-ro%20%3D%20true%0A"}
    systemd:
      units:
        - name: guestcluster-transient-ro-initramfs.service
          enabled: true
          contents: |
            [Unit]
            Description=Track prepare-root.conf in the initramfs
            ConditionPathExists=!/var/lib/guestcluster-transient-ro.done
            [Service]
            Type=oneshot
            ExecStart=/usr/bin/rpm-ostree initramfs-etc --track=/etc/ostree/prepare-root.conf
            ExecStart=/usr/bin/touch /var/lib/guestcluster-transient-ro.done
            [Install]
            WantedBy=multi-user.target
        - name: guestcluster-users-link.service
          enabled: true
          contents: |
            [Unit]
            Description=Link /Users to /var/Users
            [Service]
            Type=oneshot
            ExecStart=/usr/bin/mkdir -p /var/Users
            ExecStart=/bin/sh -c 'test -L /Users || ln -sfn var/Users /Users'
            [Install]
            WantedBy=multi-user.target
YAML
echo "result transient-ro applied"
