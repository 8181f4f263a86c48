# shellcheck shell=bash disable=SC2154  # $out is the sourcing script's
# Shared by the bench scripts (source it): start the Go SDK's conformance
# everything-server on loopback, time a command, and take medians.
# Needs: $repo (the checkout) and $out (the output dir).

# bench_tools: GNU time (for peak RSS) and the real servers of
# .ci/install-deps.sh (run first when its env.sh is missing), whose env.sh
# it sources.
bench_tools() {
	if [ ! -x /usr/bin/time ]; then
		echo "bench: installing GNU time" >&2
		(apt-get update -qq && apt-get install -y -qq time) >/dev/null
	fi
	local deps=${MCP_EVAL_DEPS:-$repo/.cache/deps}
	if [ ! -f "$deps/env.sh" ]; then
		bash "$repo/.ci/install-deps.sh"
	fi
	# shellcheck source=/dev/null
	. "$deps/env.sh"
}

server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	"$MCP_EVAL_NODE22" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

ready() { # URL: does server/discover answer 200?
	curl -s -o /dev/null -m 2 -w '%{http_code}' "$1" \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		-H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover' \
		-d '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' |
		grep -q '^200$'
}

# start_everything: the Go everything-server over stateless HTTP on a free
# loopback port; sets url (its /mcp endpoint) and server_pid, logs to
# $out/server.log. Three tries, since the free port may be taken meanwhile.
start_everything() {
	url=
	for _ in 1 2 3; do
		port=$(free_port)
		"$MCP_EVAL_GO_EVERYTHING" -http "127.0.0.1:$port" >"$out/server.log" 2>&1 &
		server_pid=$!
		for _ in $(seq 50); do
			if ready "http://127.0.0.1:$port/mcp"; then
				url=http://127.0.0.1:$port/mcp
				break
			fi
			kill -0 "$server_pid" 2>/dev/null || break
			sleep 0.1
		done
		[ -n "$url" ] && break
		cleanup
		server_pid=
	done
	if [ -z "$url" ]; then
		echo "bench: the Go everything-server did not come up; its log:" >&2
		cat "$out/server.log" >&2
		exit 2
	fi
	echo "bench: server $url (go-sdk conformance everything-server, pid $server_pid)" >&2
}

# timed NAME I CMD...: run CMD under /usr/bin/time; append "wall_s rss_kib exit" to
# $out/NAME.times. The wall time is taken in nanoseconds around the call, since
# time's %e has only 10 ms resolution; %M (peak RSS, KiB) comes from time.
timed() {
	local name=$1 i=$2 rc=0 t0 t1 wall rss
	shift 2
	t0=$(date +%s%N)
	/usr/bin/time -f '%e %M' -o "$out/$name-$i.time" "$@" >"$out/$name-$i.log" 2>&1 || rc=$?
	t1=$(date +%s%N)
	wall=$(awk -v d=$((t1 - t0)) 'BEGIN{printf "%.3f", d/1e9}')
	rss=$(tail -n 1 "$out/$name-$i.time" | awk '{print $2}')
	echo "$wall $rss $rc" >>"$out/$name.times"
	printf 'bench: %-8s run %d: %ss %s KiB exit %d\n' "$name" "$i" "$wall" "$rss" "$rc" >&2
}

median() { # column of $out/NAME.times
	awk -v c="$2" '{print $c}' "$out/$1.times" | sort -g |
		awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'
}
maxcol() { awk -v c="$2" 'BEGIN{m=0} $c>m{m=$c} END{print m}' "$out/$1.times"; }
mb() { awk -v k="$1" 'BEGIN{printf "%.1f", k/1024}'; }
