#!/usr/bin/env bash
# Times what authentication adds to a conformance run: the same protected
# server (the Go SDK's auth.RequireBearerToken, testdata/servers/go-sdk-auth)
# behind a real authorization server, evaluated alternately
#   header: with a token minted beforehand and given as --header, and
#   oauth:  with --oauth-client-id/--oauth-client-secret, mcp-eval doing the
#           discovery (401, RFC 9728, RFC 8414/OpenID) and the token request
#           itself (once: the token outlives the run),
# so that drift on a shared machine hits both alike.
#
#   bash bench/oauth.sh [-n RUNS] [--as oidc-provider|hydra|zitadel-op|both|all]
#
# Env: MCP_EVAL_DEPS (default .cache/deps; .ci/install-deps.sh runs first if
# its env.sh is missing: oidc-provider, Hydra, zitadel-op, Node 22; both is
# oidc-provider and Hydra, all the three), BENCH_RUNS (default
# 7; -n overrides), BENCH_OUT (default bench/out-oauth, git-ignored).
# Prints per authorization server the medians, the difference (the time
# authentication adds) and the oauth/header ratio. Exit status: 0 when every
# run ended with a verdict (exit 0 or 1) and the oauth runs got one token
# each; 1 otherwise; 2 on a usage or setup error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

runs=${BENCH_RUNS:-7}
which_as=both
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=${2:?-n needs a number}; shift 2 ;;
	--as) which_as=${2:?--as needs oidc-provider, hydra, zitadel-op, both or all}; shift 2 ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "bench: runs must be a positive integer, not '$runs'" >&2; exit 2 ;; esac
case $which_as in oidc-provider) ases=(oidc-provider) ;; hydra) ases=(hydra) ;; zitadel-op) ases=(zitadel-op) ;;
both) ases=(oidc-provider hydra) ;; all) ases=(oidc-provider hydra zitadel-op) ;;
*) echo "bench: --as wants oidc-provider, hydra, zitadel-op, both or all, not '$which_as'" >&2; exit 2 ;; esac

out=${BENCH_OUT:-$repo/bench/out-oauth}
rm -rf "$out"
mkdir -p "$out"

# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
bench_tools
need=(MCP_EVAL_NODE22)
for as in "${ases[@]}"; do
	case $as in oidc-provider) need+=(MCP_EVAL_OIDC_PROVIDER) ;; hydra) need+=(MCP_EVAL_HYDRA) ;; zitadel-op) need+=(MCP_EVAL_ZITADEL_OP) ;; esac
done
for v in "${need[@]}"; do
	if [ -z "${!v:-}" ]; then
		echo "bench: $v is not set: run .ci/install-deps.sh (it installs oidc-provider, Hydra and zitadel-op)" >&2
		exit 2
	fi
done

bin=$out/mcp-eval
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$bin" .
CGO_ENABLED=0 go build -trimpath -o "$out/go-sdk-auth" ./testdata/servers/go-sdk-auth
echo "bench: mcp-eval $(stat -c %s "$bin") bytes" >&2

pids=()
stop_all() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
trap stop_all EXIT

wait_200() { # URL: wait up to 30 s for 200
	for _ in $(seq 300); do
		[ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "$1")" = 200 ] && return 0
		sleep 0.1
	done
	echo "bench: $1 never answered 200" >&2
	exit 2
}

export BENCH_CLIENT_SECRET=bench-client-secret-0123456789
client=mcp-eval-bench
ttl=3600
status=0
summary=()
for as in "${ases[@]}"; do
	as_port=$(free_port)
	srv_port=$(free_port)
	url=http://127.0.0.1:$srv_port/mcp
	issuer=http://127.0.0.1:$as_port
	case $as in
	oidc-provider)
		"$MCP_EVAL_NODE22" "$MCP_EVAL_OIDC_PROVIDER" --port "$as_port" --client "$client:$BENCH_CLIENT_SECRET" \
			--resource "$url" --scope 'mcp:tools' --ttl "$ttl" >"$out/$as.log" 2>&1 &
		pids+=($!)
		wait_200 "$issuer/.well-known/openid-configuration"
		;;
	hydra)
		admin_port=$(free_port)
		DSN=memory SECRETS_SYSTEM=mcp-eval-bench-system-secret-0123456789 URLS_SELF_ISSUER=$issuer \
			SERVE_PUBLIC_HOST=127.0.0.1 SERVE_PUBLIC_PORT=$as_port SERVE_ADMIN_HOST=127.0.0.1 SERVE_ADMIN_PORT=$admin_port \
			STRATEGIES_ACCESS_TOKEN=jwt TTL_ACCESS_TOKEN=${ttl}s LOG_LEVEL=warn \
			"$MCP_EVAL_HYDRA" serve all --dev --sqa-opt-out >"$out/$as.log" 2>&1 &
		pids+=($!)
		wait_200 "$issuer/.well-known/openid-configuration"
		curl -sf -o /dev/null -X POST "http://127.0.0.1:$admin_port/admin/clients" -H 'Content-Type: application/json' \
			-d "{\"client_id\":\"$client\",\"client_secret\":\"$BENCH_CLIENT_SECRET\",\"grant_types\":[\"client_credentials\"],\"audience\":[\"$url\"],\"scope\":\"mcp:tools\",\"token_endpoint_auth_method\":\"client_secret_basic\"}"
		;;
	zitadel-op)
		"$MCP_EVAL_ZITADEL_OP" -port "$as_port" -client "$client:$BENCH_CLIENT_SECRET" -resource "$url" -scope 'mcp:tools' \
			-ttl "$ttl" >"$out/$as.log" 2>&1 &
		pids+=($!)
		wait_200 "$issuer/.well-known/openid-configuration"
		;;
	esac
	"$out/go-sdk-auth" -http "127.0.0.1:$srv_port" -issuer "$issuer" >"$out/$as-server.log" 2>&1 &
	pids+=($!)
	wait_200 "http://127.0.0.1:$srv_port/.well-known/oauth-protected-resource/mcp"
	# The static token, minted as a user would by hand.
	token_endpoint=$(curl -sf "$issuer/.well-known/openid-configuration" | "$MCP_EVAL_NODE22" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).token_endpoint))')
	tok=$(curl -sf -u "$client:$BENCH_CLIENT_SECRET" -d grant_type=client_credentials --data-urlencode "resource=$url" \
		--data-urlencode "audience=$url" -d scope=mcp:tools "$token_endpoint" |
		"$MCP_EVAL_NODE22" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).access_token))')
	export BENCH_TOKEN=$tok
	for i in $(seq "$runs"); do
		timed "$as-header" "$i" "$bin" conformance --server-url "$url" --runs 1 --out "$out/$as-header-$i" \
			--header 'Authorization: Bearer $BENCH_TOKEN'
		timed "$as-oauth" "$i" "$bin" conformance --server-url "$url" --runs 1 --out "$out/$as-oauth-$i" \
			--oauth-client-id "$client" --oauth-client-secret '$BENCH_CLIENT_SECRET' --oauth-scope mcp:tools --verbose
		if [ "$(grep -c 'OAuth: access token from' "$out/$as-oauth-$i.log")" != 1 ]; then
			echo "bench: $as oauth run $i did not get exactly one token:" >&2
			tail -n 3 "$out/$as-oauth-$i.log" >&2
			status=1
		fi
		# The run's own account: "discovery 12ms, token request 85ms".
		sed -n 's/.*; discovery \([^,]*\), token request \([^)]*\)).*/\1 \2/p' "$out/$as-oauth-$i.log" |
			awk 'function ms(d) { if (d ~ /ms$/) return d+0; if (d ~ /µs$/) return d/1000; if (d ~ /s$/) return d*1000; return 0 }
				{print ms($1), ms($2), 0}' >>"$out/$as-parts.times"
	done
	for mode in header oauth; do
		if awk '$3 > 1 {bad=1} END {exit !bad}' "$out/$as-$mode.times"; then
			echo "bench: a $as $mode run ended without a verdict (see $out/$as-$mode-*.log)" >&2
			status=1
		fi
	done
	h=$(median "$as-header" 1)
	o=$(median "$as-oauth" 1)
	dm=$(median "$as-parts" 1)
	tm=$(median "$as-parts" 2)
	summary+=("$(awk -v as="$as" -v h="$h" -v o="$o" -v n="$runs" -v dm="$dm" -v tm="$tm" 'BEGIN{printf "%-14s header %.3f s  oauth %.3f s  added %+.3f s  ratio %.3f  (medians of %d; by the run'"'"'s own account: discovery %.0f ms, token request %.0f ms)", as, h, o, o-h, o/h, n, dm, tm}')")
	stop_all
done
printf '%s\n' "${summary[@]}"
exit $status
