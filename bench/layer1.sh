#!/usr/bin/env bash
# The pre-flight benchmark: what Layer 1 costs before a model is ever called.
#
#   bash bench/layer1.sh [-n RUNS] [BASE_REV]
#
# Builds the working tree (and BASE_REV, when given, in a temporary git
# worktree) and the example weather server, then times, alternating, RUNS
# times each (default 5; the medians are printed):
#   refused   mcp-eval run --layers behavior --runs 1 on the shipped golden
#             set with OPENAI_BASE_URL on a port nothing listens on: how
#             long until it stops, and how many lines it prints on stderr
#             (the working tree probes the endpoint first; limit 3 s);
#   dry-run   mcp-eval run --dry-run of the shipped golden set on two models
#             (validation against the live server, plan and estimate);
#   init      mcp-eval init against the example server (the three files).
# BENCH_OUT (default bench/out-layer1, git-ignored) keeps every run's output.
# Exit status: 0 when the refused run's median is under 3 s, 1 otherwise,
# 2 on a usage or setup error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
runs=5
base=
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:?-n needs a number}; shift 2 ;;
	-h | --help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	*) base=$1; shift ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "bench: runs must be a positive integer, not '$runs'" >&2; exit 2 ;; esac

out=${BENCH_OUT:-$repo/bench/out-layer1}
rm -rf "$out"
mkdir -p "$out"
wt=
cleanup() { if [ -n "$wt" ]; then git worktree remove --force "$wt" >/dev/null 2>&1 || true; fi; }
trap cleanup EXIT

build() { CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$2" "$1"; }
build . "$out/new"
build ./examples/weather-server "$out/weather"
bins=(new)
if [ -n "$base" ]; then
	sha=$(git rev-parse --verify --quiet "$base^{commit}") || { echo "bench: $base is not a revision" >&2; exit 2; }
	wt=$(mktemp -d)
	git worktree add --detach "$wt" "$sha" >/dev/null 2>&1
	(cd "$wt" && build . "$out/base")
	bins=(base new)
fi
closed=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')

# now_ms: wall clock in milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run NAME BIN I CMD...: times CMD in a fresh directory, appends
# "seconds stderr_lines exit" to $out/NAME-BIN.times.
run() {
	local name=$1 bin=$2 i=$3 rc=0 t0 t1 dir
	shift 3
	dir="$out/$name-$bin-$i"
	mkdir -p "$dir"
	t0=$(now_ms)
	(cd "$dir" && env -i PATH="$PATH" HOME="$HOME" "$@" >stdout 2>stderr) || rc=$?
	t1=$(now_ms)
	echo "$(awk -v ms=$((t1 - t0)) 'BEGIN{printf "%.3f", ms/1000}') $(wc -l <"$dir/stderr") $rc" >>"$out/$name-$bin.times"
}

golden=$repo/golden/tasks.yaml
for i in $(seq "$runs"); do
	for b in "${bins[@]}"; do
		run refused "$b" "$i" env OPENAI_BASE_URL="http://127.0.0.1:$closed/v1" timeout 300 "$out/$b" run --server-cmd "$out/weather" \
			--golden "$golden" --models openai:gpt-4.1-mini --layers behavior --runs 1
	done
	run dry-run new "$i" "$out/new" run --dry-run --server-cmd "$out/weather" --golden "$golden" --models openai:gpt-4.1-mini,ollama:qwen2.5:7b
	run init new "$i" "$out/new" init --server-cmd "$out/weather"
done

median() { sort -n | awk '{a[NR]=$1} END{if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
col() { awk -v c="$1" '{print $c}' "$2"; }
printf '%-24s %10s %14s %s\n' measure "median s" "stderr lines" exits
for f in "$out"/*.times; do
	n=$(basename "$f" .times)
	printf '%-24s %10s %14s %s\n' "$n" "$(col 1 "$f" | median)" "$(col 2 "$f" | median)" "$(col 3 "$f" | sort -u | tr '\n' ' ')"
done
new=$(col 1 "$out/refused-new.times" | median)
if [ -n "$base" ]; then
	old=$(col 1 "$out/refused-base.times" | median)
	echo "refused endpoint: base $old s → new $new s ($(awk -v a="$old" -v b="$new" 'BEGIN{printf "%.0f", a/b}')× faster)"
fi
awk -v s="$new" 'BEGIN{exit !(s < 3)}' || { echo "bench: the refused run took $new s, over 3 s" >&2; exit 1; }
