#!/usr/bin/env bash
# Measures wall time and peak RSS of `mcp-eval conformance` against servers
# that misbehave on purpose (bench/hostile): one row per mode and transport.
#
#   bash bench/hostile.sh [MODE...]      (default: every mode)
#
# Env:
#   MCP_EVAL_BIN   mcp-eval binary (default: built into bench/out)
#   TIMEOUT        --timeout passed to mcp-eval (default 5s)
#   EXTRA          more mcp-eval flags (e.g. "--concurrency 16")
#   CAP            seconds after which a run is killed and reported as such
#                  (default 400)
#
# Modes: http:json200 http:sse200 http:sse-endless http:gzip http:trickle
# http:headers http:hang http:pages-endless stdio:json200 stdio:hang stdio:endless;
# not by default: http:drip http:sse-slow http:1xx http:many-tools http:many-pages stdio:drip
# stdio:notes (bench/hostile/slow.go, many.go).
# Each run is timed with /usr/bin/time -f '%e %M' (wall seconds, peak RSS in
# KiB). Exit status is 0; the figures are the result.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
out=bench/out/hostile
mkdir -p "$out"
bin=${MCP_EVAL_BIN:-}
if [ -z "$bin" ]; then
	bin=$out/mcp-eval
	go build -o "$bin" .
fi
go build -o "$out/hostile" ./bench/hostile
timeout_flag=${TIMEOUT:-5s}
cap=${CAP:-400}
modes=("$@")
if [ ${#modes[@]} -eq 0 ]; then
	modes=(http:json200 http:sse200 http:sse-endless http:gzip http:trickle http:headers http:hang http:pages-endless stdio:json200 stdio:hang stdio:endless)
fi
port=$((20000 + RANDOM % 20000))
printf '%-18s %8s %9s %4s\n' mode wall_s rss_MB exit
for m in "${modes[@]}"; do
	tr=${m%%:*}
	mode=${m#*:}
	port=$((port + 1))
	if [ "$tr" = http ]; then
		"$out/hostile" -mode "$mode" -addr "127.0.0.1:$port" &
		srv=$!
		for _ in $(seq 300); do
			curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
			sleep 0.1
		done
		target=(--server-url "http://127.0.0.1:$port/mcp")
	else
		srv=
		target=(--server-cmd "$out/hostile -stdio -mode $mode")
	fi
	set +e
	# shellcheck disable=SC2086
	/usr/bin/time -o "$out/time.txt" -f '%e %M' timeout -s KILL "$cap" \
		"$bin" conformance "${target[@]}" --timeout "$timeout_flag" --out "$out/run-$tr-$mode" ${EXTRA:-} \
		>"$out/stdout-$tr-$mode.txt" 2>"$out/stderr-$tr-$mode.txt"
	rc=$?
	set -e
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null || true
	read -r wall rss <"$(tail -n1 "$out/time.txt" >"$out/t1" && echo "$out/t1")" || true
	printf '%-18s %8s %9s %4s\n' "$m" "$wall" "$((rss / 1024))" "$rc"
done
