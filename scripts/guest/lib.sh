# Assertions for the guest test scripts (sourced by /bin/sh). Each prints one line:
#   PASS <what>   FAIL <what>: <why>   SKIP <what>: <why>   XFAIL <what>: <why> (known broken)
# and `summary` prints 'N passed, N failed, N skipped, N known broken' and sets the exit
# status (only FAIL fails).
passed=0 failed=0 skipped=0
log="$(mktemp "${TMPDIR:-/tmp}/camfx-check.XXXXXX")"

guest_scripts="$(cd "$(dirname "$0")" && pwd)"
media_check() { python3 "$guest_scripts/media_check.py" "$@"; }

# Seconds since this script started, to show where the time goes under TCG.
started_at="$(cut -d' ' -f1 /proc/uptime)"
now() { awk -v s="$started_at" -v n="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", n - s }'; }
pass() { passed=$((passed + 1)); echo "PASS $1 [$(now) s]"; }
fail() {
  if [ -n "$known_broken" ] && [ "${GUEST_STRICT:-0}" != 1 ]; then
    xfailed=$((xfailed + 1)); echo "XFAIL $1: $2 [$(now) s] (known broken: $known_broken)"
  else
    failed=$((failed + 1)); echo "FAIL $1: $2 [$(now) s]"
  fi
}
# known_broken REASON ... known_broken "": failures in between are printed as XFAIL and do
# not fail the run (GUEST_STRICT=1 counts them), for a landed feature that is known not
# to work in the guest yet. Its checks still run and print what went wrong.
known_broken=""
xfailed=0
known_broken() { known_broken="$1"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }

# check WHAT COMMAND...: passes when COMMAND exits 0; otherwise fails with its output tail.
check() {
  what="$1"; shift
  if "$@" >"$log" 2>&1; then
    pass "$what"
  else
    fail "$what" "$(tail -n 3 "$log" | tr '\n' ' ')(exit $?)"
  fi
}
# step: a check whose failure makes the checks after it meaningless for the same object;
# same output, returns the command's status so callers can stop.
step() {
  what="$1"; shift
  if "$@" >"$log" 2>&1; then pass "$what"; return 0; fi
  rc=$?
  fail "$what" "$(tail -n 3 "$log" | tr '\n' ' ')(exit $rc)"
  return "$rc"
}
# check_eq WHAT EXPECTED COMMAND...: COMMAND's stdout (trimmed) must equal EXPECTED.
check_eq() {
  what="$1"; want="$2"; shift 2
  got="$("$@" 2>"$log")"; rc=$?
  if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
    pass "$what = $got"
  else
    fail "$what" "got '$got' want '$want' $(tail -n 2 "$log" | tr '\n' ' ')(exit $rc)"
  fi
}
# check_near WHAT EXPECTED TOLERANCE VALUE: |VALUE - EXPECTED| <= TOLERANCE (decimals ok).
check_near() {
  if awk -v a="$4" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; then
    pass "$1 = $4 (want $2 ± $3)"
  else
    fail "$1" "got '$4' want $2 ± $3"
  fi
}
# check_refused WHAT STATUS ERRFILE REGEX: a command that must fail cleanly: STATUS is a
# non-zero exit of its own (not a timeout's 124/137, not a crash's 128+signal) and its
# stderr (ERRFILE) matches the extended REGEX (case-insensitive) — the one-line message.
check_refused() {
  if [ "$2" -eq 0 ] || [ "$2" -ge 124 ]; then
    fail "$1" "exit status $2, want a clean failure; stderr: $(tail -n 2 "$3" 2>/dev/null | tr '\n' ' ')"
  elif grep -q -i -E "$4" "$3" 2>/dev/null; then
    pass "$1: exit $2, $(grep -i -E "$4" "$3" | tail -n 1)"
  else
    fail "$1" "exit $2 but stderr does not match '$4': $(tail -n 2 "$3" 2>/dev/null | tr '\n' ' ')"
  fi
}
# check_lists WHAT FILE WORD...: one PASS/FAIL per WORD found in FILE, with one fork in
# all (every fork costs about a second in the TCG guest).
check_lists() {
  what="$1"; file="$2"; shift 2
  text="$(cat "$file" 2>/dev/null)"
  for word in "$@"; do
    case "$text" in
      *"$word"*) pass "$what lists $word" ;;
      *) fail "$what lists $word" "not in $file" ;;
    esac
  done
}
summary() {
  rm -f "$log"
  echo "$passed passed, $failed failed, $skipped skipped, $xfailed known broken (XFAIL)"
  [ "$failed" -eq 0 ]
}
