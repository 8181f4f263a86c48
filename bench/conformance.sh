#!/usr/bin/env bash
# Benchmarks `mcp-eval conformance` against the official MCP conformance suite
# (`conformance server --requirements 2026-07-28`), side by side on the same
# server: the Go SDK's conformance everything-server (stateless HTTP on loopback).
#
#   bash bench/conformance.sh [-n RUNS] [--suite-only]
#
# Env:
#   MCP_EVAL_BIN     mcp-eval binary (default: ./mcp-eval, built here with
#                    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w')
#   MCP_EVAL_DEPS    cache dir of .ci/install-deps.sh (default: .cache/deps);
#                    install-deps.sh is run first if its env.sh is missing
#   BENCH_RUNS       runs per tool (default 7; -n overrides)
#   BENCH_OUT        output dir (default: bench/out, git-ignored)
#
# Each run is timed with /usr/bin/time -f '%e %M' (peak RSS in KiB; the wall
# time is measured around it in nanoseconds, finer than %e's 10 ms);
# the two tools alternate so that drift on a shared machine hits both alike.
# Prints the medians, the suite/mcp-eval ratios and the stripped binary size.
# Exit status: 0 when mcp-eval's median wall time is at most 1/5 of the suite's
# and its peak RSS (the largest over all runs) is at most 40 MB; 1 when either
# bound is broken or a tool did not run properly; 2 on a usage or setup error.
# --suite-only times the suite alone (no gate; for when mcp-eval is not built).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

runs=${BENCH_RUNS:-7}
suite_only=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:?-n needs a number}; shift 2 ;;
	--suite-only) suite_only=1; shift ;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "bench: runs must be a positive integer, not '$runs'" >&2; exit 2 ;; esac

max_ratio=5   # mcp-eval must be at least this many times faster (median wall)
max_rss_mb=40 # and never use more than this (peak RSS, any run)

out=${BENCH_OUT:-$repo/bench/out}
rm -rf "$out"
mkdir -p "$out"

# --- tools: GNU time, the real servers (bench/lib.sh) ------------------------------
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
bench_tools

bin_size=
if [ "$suite_only" -eq 0 ]; then
	if [ -z "${MCP_EVAL_BIN:-}" ]; then
		MCP_EVAL_BIN=$repo/mcp-eval
		echo "bench: building $MCP_EVAL_BIN" >&2
		if ! CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$MCP_EVAL_BIN" . >"$out/build.log" 2>&1; then
			cat "$out/build.log" >&2
			echo "bench: could not build mcp-eval (use --suite-only to time the suite alone)" >&2
			exit 2
		fi
	fi
	if [ ! -x "$MCP_EVAL_BIN" ]; then
		echo "bench: MCP_EVAL_BIN=$MCP_EVAL_BIN is not an executable" >&2
		exit 2
	fi
	bin_size=$(stat -c %s "$MCP_EVAL_BIN")
fi

# --- the server ---------------------------------------------------------------------
start_everything
echo "bench: $runs runs each" >&2

# --- runs ---------------------------------------------------------------------------
for i in $(seq "$runs"); do
	if [ "$suite_only" -eq 0 ]; then
		timed mcp-eval "$i" "$MCP_EVAL_BIN" conformance --server-url "$url" --out "$out/mcp-eval-$i"
	fi
	timed suite "$i" "$MCP_EVAL_NODE22" "$MCP_EVAL_CONFORMANCE_CLI" server \
		--url "$url" --requirements 2026-07-28 -o "$out/suite-$i"
done

# --- summary ------------------------------------------------------------------------
# mcp-eval exits 1 when it finds a hard failure, which it does on this
# server (go-sdk v1.8.0 does not decode base64 Mcp-Name values nor reject a
# foreign Origin; see README). A verdict is a successful run; 2, 3 or a crash
# is not.
badexits() { awk -v tool="$1" '(tool=="mcp-eval" && $3>1) || (tool!="mcp-eval" && $3!=0)' "$out/$1.times" | wc -l; }

s_wall=$(median suite 1)
s_rss=$(median suite 2)
printf '\n%-10s %12s %14s %14s %10s\n' tool "median wall" "median RSS" "max RSS" "bad exits"
printf '%-10s %11ss %11s MB %11s MB %7s/%s\n' suite "$s_wall" "$(mb "$s_rss")" "$(mb "$(maxcol suite 2)")" "$(badexits suite)" "$runs"

if [ "$suite_only" -eq 1 ]; then
	echo "(suite only: no gate)"
	exit 0
fi

m_wall=$(median mcp-eval 1)
m_rss=$(median mcp-eval 2)
m_rss_max=$(maxcol mcp-eval 2)
printf '%-10s %11ss %11s MB %11s MB %7s/%s\n' mcp-eval "$m_wall" "$(mb "$m_rss")" "$(mb "$m_rss_max")" "$(badexits mcp-eval)" "$runs"
awk -v sw="$s_wall" -v mw="$m_wall" -v sr="$s_rss" -v mr="$m_rss" 'BEGIN{
	printf "ratio suite/mcp-eval: wall %s, RSS %.1fx\n", (mw > 0 ? sprintf("%.1fx", sw/mw) : "inf"), sr/mr }'
printf 'mcp-eval binary: %s bytes (%s MB, stripped)\n' "$bin_size" "$(mb $((bin_size / 1024)))"

fail=0
if [ "$(badexits mcp-eval)" -ne 0 ]; then
	echo "FAIL: mcp-eval exited with neither 0 nor 1 in $(badexits mcp-eval) of $runs runs (logs: $out/mcp-eval-*.log)"
	fail=1
fi
if awk -v sw="$s_wall" -v mw="$m_wall" -v r="$max_ratio" 'BEGIN{exit !(mw > sw / r)}'; then
	echo "FAIL: mcp-eval median wall ${m_wall}s exceeds 1/$max_ratio of the suite's ${s_wall}s"
	fail=1
fi
if [ "$m_rss_max" -gt $((max_rss_mb * 1024)) ]; then
	echo "FAIL: mcp-eval peak RSS $(mb "$m_rss_max") MB exceeds $max_rss_mb MB"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "PASS: mcp-eval is at least ${max_ratio}x faster than the suite and stays under $max_rss_mb MB"
exit "$fail"
