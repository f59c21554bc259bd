#!/usr/bin/env bash
# `make install` into a scratch DESTDIR, then checks what a packager or a user gets: the
# binary runs, every man page renders, the completion scripts load, `make uninstall`
# removes it all, and the systemd unit in examples/ verifies.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$(mktemp -d /tmp/camfx-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT
pass=0 fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@" >/dev/null 2>"$dest/err"; then echo "PASS $name"; pass=$((pass + 1))
  else echo "FAIL $name: $(tail -n 2 "$dest/err" | tr '\n' ' ')"; fail=$((fail + 1)); fi
}
# CPU=x86-64: the portable build the guest tests made already (make test runs them first).
make -s install DESTDIR="$dest/root" PREFIX=/usr/local CPU=x86-64 >"$dest/make.log" 2>&1 || { cat "$dest/make.log"; exit 1; }
p="$dest/root/usr/local"
check "installed camfx runs (--version)" "$p/bin/camfx" --version
check "installed camfx needs no Swift runtime (ldd names no libswift or libFoundation)" \
  sh -c '! ldd "$0" | grep -E "libswift|libFoundation"' "$p/bin/camfx"
check "man page camfx.1 renders" sh -c 'MANWIDTH=80 man -l "$0" | grep -q "camfx"' "$p/share/man/man1/camfx.1"
for page in record repair snapshot run; do
  check "man page camfx.$page.1 renders and names the command" \
    sh -c 'MANWIDTH=80 man -l "$0" | grep -q "camfx.record\|camfx.repair\|camfx.snapshot\|camfx.run"' "$p/share/man/man1/camfx.$page.1"
done
check "bash completion loads and completes camfx" \
  bash -c '. "$0" && complete -p camfx' "$p/share/bash-completion/completions/camfx"
check "zsh completion defines _camfx" grep -q "_camfx" "$p/share/zsh/site-functions/_camfx"
check "fish completion names camfx" grep -q "complete -c 'camfx'" "$p/share/fish/vendor_completions.d/camfx.fish"
if command -v systemd-analyze >/dev/null; then
  for name in camfx-record camfx-run; do
    unit="$dest/$name.service"
    sed "s|/usr/local/bin/camfx|$p/bin/camfx|" "examples/$name.service" >"$unit"
    check "examples/$name.service verifies (systemd-analyze verify)" systemd-analyze verify "$unit"
  done
fi
make -s uninstall DESTDIR="$dest/root" PREFIX=/usr/local
check "make uninstall leaves no file" test -z "$(find "$dest/root" -type f)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
