#!/usr/bin/env bash
# Install Debian's python3-torch and python3-torchvision when missing (for models/*/export.py;
# `make bench-resnet18`). Non-interactive; sudo when not root. Never needed by `make run`/`make test`.
set -eu
missing=()
for p in python3-torch python3-torchvision python3-numpy python3-onnx; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "bench: installing missing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null || echo "bench: apt-get update reported errors; trying the install anyway" >&2
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >/tmp/ovta-apt-torch.log 2>&1 || {
  echo "bench: apt-get install failed; see /tmp/ovta-apt-torch.log" >&2; tail -20 /tmp/ovta-apt-torch.log >&2; exit 1; }
