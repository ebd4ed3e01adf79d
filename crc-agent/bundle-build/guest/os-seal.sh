# guestcluster-build-step: os-seal
# P10, snc's createdisk.sh up to cleanup_vm_image, in its order, without what is deferred: the
# Hyper-V and qemu-guest-agent set-up and the layered packages
# (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced).
# Every step overwrites or re-enables what it sets, so a repeat changes nothing.
# CRC's units and scripts (snc's copy_systemd_units), when the build carries them, were streamed
# into <work>/units.
# Usage: bash -s -- <work dir> <routes-controller image> <node IP, 192.168.126.11>
set -euo pipefail
work="${1:?work dir}"
routes_image="${2:?routes-controller image}"
node_ip="${3:-192.168.126.11}"

# The kubelet: disabled first, then stopped; running containers stay until the next boot.
systemctl disable kubelet.service >/dev/null 2>&1
systemctl stop kubelet.service
# The podman API socket, for the system and for core.
systemctl enable --now podman.socket >/dev/null 2>&1
install -d -m 0755 /home/core/.config/systemd/user/sockets.target.wants
ln -sfn /usr/lib/systemd/user/podman.socket /home/core/.config/systemd/user/sockets.target.wants/podman.socket
chown -R core:core /home/core/.config
# The tap device CRC's vsock networking leases 192.168.127.2 to.
if ! nmcli -t -f NAME connection show | grep -qx tap0; then
  nmcli connection add type tun ifname tap0 con-name tap0 mode tap autoconnect yes \
    802-3-ethernet.cloned-mac-address 5A:94:EF:E4:0C:EE ipv6.method disabled >/dev/null
fi
# CRI-O never wipes the image cache.
install -d -m 0755 /etc/systemd/system/crio-wipe.service.d
cat >/etc/systemd/system/crio-wipe.service.d/10-guestcluster-keep-images.conf <<'UNIT'
[Service]
ExecStart=
ExecStart=/bin/true
UNIT
# The public routes-controller image, and its manifest for CRC to apply.
podman pull --quiet "$routes_image" >/dev/null
install -d -m 0755 /opt/crc
cat >/opt/crc/routes-controller.yaml <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: routes-controller, namespace: openshift-ingress}
spec:
  replicas: 1
  selector: {matchLabels: {app: routes-controller}}
  template:
    metadata: {labels: {app: routes-controller}}
    spec:
      serviceAccountName: router
      containers:
        - name: routes-controller
          image: ${routes_image}
          imagePullPolicy: IfNotPresent
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: routes-controller, namespace: openshift-ingress}
spec:
  podSelector: {matchLabels: {app: routes-controller}}
  policyTypes: [Ingress]
YAML
# 80-nodeip.conf: the literal node IP of the dummy eth10, never the masquerade address.
install -d -m 0755 /etc/systemd/system/kubelet.service.d
printf '[Service]\nEnvironment="KUBELET_NODE_IP=%s"\n' "$node_ip" >/etc/systemd/system/kubelet.service.d/80-nodeip.conf
# CRC's units and scripts, rendered for the apps domain, installed and enabled.
enabled=0
if [[ -d "$work/units" ]]; then
  for file in "$work"/units/*; do
    [[ -f "$file" ]] || continue
    name="$(basename "$file")"
    case "$name" in
      *.sh | *.py) sed 's/@APPS_DOMAIN@/apps-crc.testing/g' "$file" >"/usr/local/bin/$name"; chmod 0755 "/usr/local/bin/$name" ;;
      *.service | *.target) install -m 0644 "$file" "/etc/systemd/system/$name" ;;
    esac
  done
  for dropins in "$work"/units/*.d; do
    [[ -d "$dropins" ]] && cp -r "$dropins" /etc/systemd/system/
  done
  restorecon -R /etc/systemd/system /usr/local/bin >/dev/null 2>&1 || true
  systemctl daemon-reload
  for unit in "$work"/units/*.service; do
    [[ -f "$unit" ]] || continue
    systemctl enable "$(basename "$unit")" >/dev/null 2>&1
    enabled=$((enabled + 1))
  done
fi
# crc-env: self-sufficient units skip unless cloud-init flips this.
install -d -m 0755 /etc/sysconfig
echo 'CRC_SELF_SUFFICIENT=0' >/etc/sysconfig/crc-env
systemctl daemon-reload
echo "result kubelet $(systemctl is-enabled kubelet.service 2>/dev/null || true)"
echo "result crc-units-enabled $enabled"
