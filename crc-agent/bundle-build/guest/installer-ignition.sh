# guestcluster-build-step: installer-ignition
# P2, installer VM, on the shifted clock: what snc.sh does from install-config.yaml to the live
# ignition, with the build's additions
# (docs/adr/0032-bundle-build-guest-side.md#what-the-build-adds-to-snc).
# The Job streamed the inputs as a tar into <work>/inputs first:
#   openshift-install                 the binary extracted in P0
#   install-config.yaml               snc's install-config without pullSecret
#   cvo-overrides.yaml                the overrides block appended to the generated one
#   manifests/*.yaml                  extra manifests (OVN-Kubernetes MTU, installation manifests)
#   openshift/*.yaml                  MachineConfigs (snc's, and the node-IP hint)
#   live-additions.json               fragment merged into the live ignition (chronyd masked,
#                                     the node-IP hint, the dummy eth10)
# The pull secret arrives as one JSON line on stdin, after this script; it is written only into
# the install dir on this VM's ephemeral disk and is never echoed.
# Usage: bash -s -- <work dir> ; then one line on stdin: the pull secret (compact JSON)
set -euo pipefail
# The body is one function, called on the last line: bash has then read all of it, and what
# follows on stdin is left for the script to read.
main() {
work="${1:?work dir}"
inputs="$work/inputs"
dir="$work/install"
IFS= read -r pull_secret || true
[[ -n "${pull_secret:-}" ]] || { echo "error pull-secret none arrived on stdin" >&2; exit 2; }
for input in openshift-install install-config.yaml cvo-overrides.yaml live-additions.json; do
  [[ -e "$inputs/$input" ]] || { echo "error input-missing $input" >&2; exit 2; }
done

# A retried run starts from a clean install dir: openshift-install consumes install-config.
rm -rf "$dir"
install -d -m 0700 "$dir"
umask 077
{
  cat "$inputs/install-config.yaml"
  printf "pullSecret: '%s'\n" "$pull_secret"
} >"$dir/install-config.yaml"
unset pull_secret
install -m 0755 "$inputs/openshift-install" "$work/openshift-install"

"$work/openshift-install" create manifests --dir "$dir" >"$work/create-manifests.log" 2>&1 ||
  { tail -n 20 "$work/create-manifests.log" >&2; echo "error create-manifests failed" >&2; exit 3; }

# The generated file ends inside spec:, so the indented overrides block is appended to it.
cat "$inputs/cvo-overrides.yaml" >>"$dir/manifests/cvo-overrides.yaml"
# The apps domain is a zone of its own.
sed -i 's/^\(  domain:\).*/\1 apps-crc.testing/' "$dir/manifests/cluster-ingress-02-config.yml"
# The network manifest and the installation manifests; the MachineConfigs.
if compgen -G "$inputs/manifests/*" >/dev/null; then cp "$inputs"/manifests/* "$dir/manifests/"; fi
if compgen -G "$inputs/openshift/*" >/dev/null; then cp "$inputs"/openshift/* "$dir/openshift/"; fi

# The single-node ignition, with CRC as the installer's invoker.
OPENSHIFT_INSTALL_INVOKER=codeReadyContainers \
  OPENSHIFT_INSTALL_EXPERIMENTAL_DISABLE_IMAGE_POLICY=true \
  "$work/openshift-install" create single-node-ignition-config --dir "$dir" \
  >"$work/create-ignition.log" 2>&1 ||
  { tail -n 20 "$work/create-ignition.log" >&2; echo "error create-ignition failed" >&2; exit 3; }

# Merge the fragment's systemd units and storage files into the live ignition.
live="$dir/bootstrap-in-place-for-live-iso.ign"
python3 - "$live" "$inputs/live-additions.json" <<'PY'
import json, sys
live_path, additions_path = sys.argv[1], sys.argv[2]
with open(live_path) as f:
    live = json.load(f)
with open(additions_path) as f:
    additions = json.load(f)
def merge(section, key, name_of):
    target = live.setdefault(section, {}).setdefault(key, [])
    names = {name_of(item) for item in additions.get(section, {}).get(key, [])}
    target[:] = [item for item in target if name_of(item) not in names]
    target.extend(additions.get(section, {}).get(key, []))
merge("systemd", "units", lambda u: u["name"])
merge("storage", "files", lambda f: f["path"])
with open(live_path, "w") as f:
    json.dump(live, f)
PY
echo "result ignition $(basename "$live")"
echo "result ignition-sha256 $(sha256sum "$live" | cut -d' ' -f1)"
echo "result clock $(date -u +%s)"
}
main "$@"
