#!/usr/bin/env bash
# Times `mcp-eval conformance` of two revisions side by side on the same
# server, so that a change of structure can show it cost no speed:
#
#   bash bench/revisions.sh [-n RUNS] [--checks LIST] BASE_REV
#
# BASE_REV is built in a temporary git worktree, the working tree as it is
# (both with CGO_ENABLED=0 go build -trimpath -ldflags='-s -w'). Each run
# evaluates the Go SDK's conformance everything-server twice per binary:
# over stateless HTTP on loopback, and over stdio (--server-cmd, one process
# per connection). The binaries alternate run by run so that drift on a
# shared machine hits both alike. --checks passes the same check ids or
# groups to both (e.g. to leave out checks one revision added or changed,
# so that the ratio measures the structure alone).
#
# Env: MCP_EVAL_DEPS (default .cache/deps; .ci/install-deps.sh runs first if
# its env.sh is missing), BENCH_RUNS (default 7; -n overrides), BENCH_OUT
# (default bench/out-revisions, git-ignored).
# Prints the medians and the new/base ratios per transport. Exit status: 0
# when the working tree's median wall time is at most 1.15 × the base's on
# both transports (room for a noisy machine), 1 when it is slower or a run did not finish
# with a verdict (exit 0 or 1), 2 on a usage or setup error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

runs=${BENCH_RUNS:-7}
base=
checks=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:?-n needs a number}; shift 2 ;;
	--checks) checks=(--checks "${2:?--checks needs a list}"); shift 2 ;;
	-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
	-*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	*) base=$1; shift ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "bench: runs must be a positive integer, not '$runs'" >&2; exit 2 ;; esac
if [ -z "$base" ]; then
	echo "bench: name the base revision (e.g. bash bench/revisions.sh 2378b97)" >&2
	exit 2
fi
base_sha=$(git rev-parse --verify --quiet "$base^{commit}") || {
	echo "bench: $base is not a revision of this repository" >&2
	exit 2
}
max_ratio=1.15

out=${BENCH_OUT:-$repo/bench/out-revisions}
rm -rf "$out"
mkdir -p "$out"

# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
bench_tools

# --- the two binaries ----------------------------------------------------------------
wt=$(mktemp -d)
# shellcheck disable=SC2317  # called from the EXIT trap
remove_worktree() { git worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"; }
trap 'remove_worktree; cleanup' EXIT
git worktree add --detach -q "$wt" "$base_sha"
build() { # DIR BIN
	if ! (cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$2" .) >"$out/build.log" 2>&1; then
		cat "$out/build.log" >&2
		echo "bench: could not build $1" >&2
		exit 2
	fi
}
echo "bench: building $base (${base_sha:0:12}) and the working tree" >&2
build "$wt" "$out/mcp-eval-base"
build "$repo" "$out/mcp-eval-new"

start_everything
echo "bench: $runs runs each, HTTP and stdio" >&2

# --- runs -----------------------------------------------------------------------------
for i in $(seq "$runs"); do
	for v in base new; do
		timed "$v-http" "$i" "$out/mcp-eval-$v" conformance "${checks[@]}" --server-url "$url" --out "$out/$v-http-$i"
		timed "$v-stdio" "$i" "$out/mcp-eval-$v" conformance "${checks[@]}" --server-cmd "$MCP_EVAL_GO_EVERYTHING" --out "$out/$v-stdio-$i"
	done
done

# --- summary --------------------------------------------------------------------------
# A verdict (0: passed, 1: a failure found) is a run that finished; 2, 3 or a
# crash is not.
badexits() { awk '$3>1' "$out/$1.times" | wc -l; }
fail=0
printf '\n%-6s %14s %14s %8s %12s\n' transport "base median" "new median" ratio "bad exits"
for t in http stdio; do
	b=$(median "base-$t" 1)
	n=$(median "new-$t" 1)
	bad=$(($(badexits "base-$t") + $(badexits "new-$t")))
	ratio=$(awk -v b="$b" -v n="$n" 'BEGIN{printf "%.2f", (b > 0 ? n/b : 0)}')
	printf '%-9s %13ss %13ss %7sx %9s/%s\n' "$t" "$b" "$n" "$ratio" "$bad" "$((2 * runs))"
	if [ "$bad" -ne 0 ]; then
		echo "FAIL: $bad $t run(s) ended without a verdict (logs: $out/*-$t-*.log)"
		fail=1
	fi
	if awk -v r="$ratio" -v m="$max_ratio" 'BEGIN{exit !(r > m)}'; then
		echo "FAIL: over $t the working tree is ${ratio}x the base's median wall time (limit ${max_ratio}x)"
		fail=1
	fi
done
printf 'peak RSS (max over runs): base %s MB, new %s MB\n' \
	"$(mb "$(cat "$out"/base-*.times | awk 'BEGIN{m=0} $2>m{m=$2} END{print m}')")" \
	"$(mb "$(cat "$out"/new-*.times | awk 'BEGIN{m=0} $2>m{m=$2} END{print m}')")"
[ "$fail" -eq 0 ] && echo "PASS: the working tree is within ${max_ratio}x of $base on both transports"
exit "$fail"
