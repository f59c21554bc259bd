#!/usr/bin/env bash
# Prints the kernel version the guest boots: the newest installed Debian kernel that has
# both /boot/vmlinuz-KVER and /lib/modules/KVER. The running host kernel is not used —
# its modules are usually not installed (containers, CI VMs).
set -euo pipefail
best=""
for k in /boot/vmlinuz-*; do
  [[ -e "$k" ]] || continue
  v="${k#/boot/vmlinuz-}"
  [[ -d "/lib/modules/$v/kernel" ]] || continue
  if [[ -z "$best" ]] || [[ "$(printf '%s\n%s\n' "$best" "$v" | sort -V | tail -1)" == "$v" ]]; then
    best="$v"
  fi
done
if [[ -z "$best" ]]; then
  echo "guest: no kernel with modules found (need /boot/vmlinuz-KVER and /lib/modules/KVER; install linux-image-amd64)" >&2
  exit 1
fi
echo "$best"
