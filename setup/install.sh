#!/usr/bin/env bash
# Installs a released mcp-eval for this runner: the setup action's only step.
#
#   MCP_EVAL_VERSION=v1.2.3 bash setup/install.sh     # inside a workflow
#   bash setup/install.sh --asset-name                # prints the asset for RUNNER_OS/RUNNER_ARCH
#
# It downloads ASSET and checksums.txt from $MCP_EVAL_BASE_URL/$MCP_EVAL_VERSION/,
# refuses to install unless ASSET's SHA-256 matches its line in
# checksums.txt, unpacks the binary (mcp-eval, or mcp-eval.exe on Windows,
# at the archive's top level as scripts/release.sh stores it) into the tool
# cache, and appends that directory to $GITHUB_PATH. Runs under bash on
# Linux, macOS and Windows (Git Bash) runners.
set -euo pipefail

die() {
	echo "::error title=mcp-eval setup::$*" >&2
	exit 1
}

# asset_name maps the runner's RUNNER_OS and RUNNER_ARCH (Linux, macOS,
# Windows; X64, ARM64) to a release asset of scripts/release.sh.
asset_name() {
	local os arch ext=tar.gz
	case "${RUNNER_OS:-}" in
	Linux) os=linux ;;
	macOS) os=darwin ;;
	Windows) os=windows ext=zip ;;
	*) die "RUNNER_OS ${RUNNER_OS:-(unset)} is not Linux, macOS or Windows: no mcp-eval release for it" ;;
	esac
	case "${RUNNER_ARCH:-}" in
	X64) arch=amd64 ;;
	ARM64) arch=arm64 ;;
	*) die "RUNNER_ARCH ${RUNNER_ARCH:-(unset)} is not X64 or ARM64: no mcp-eval release for it" ;;
	esac
	echo "mcp-eval_${os}_${arch}.${ext}"
}

if [ "${1:-}" = --asset-name ]; then
	asset_name
	exit 0
fi

version=${MCP_EVAL_VERSION:?MCP_EVAL_VERSION is not set (the version input)}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$ ]] || die "version $version is not vX.Y.Z or vX.Y.Z-PRERELEASE"
base=${MCP_EVAL_BASE_URL:-https://github.com/mcp-eval/mcp-eval/releases/download}
asset=$(asset_name)
exe=mcp-eval
[ "$RUNNER_OS" = Windows ] && exe=mcp-eval.exe

tmp=$(mktemp -d "${RUNNER_TEMP:-/tmp}/mcp-eval-setup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# HTTPS only, redirects included (GitHub sends assets to its CDN), unless
# the base URL itself is plain HTTP (a local mirror, the tests).
proto='=https'
case "$base" in http://*) proto='=https,http' ;; esac
fetch() { # URL FILE: bounded in time and retried on transient errors
	curl --fail --silent --show-error --location --proto "$proto" --proto-redir "$proto" \
		--connect-timeout 20 --max-time 300 --retry 3 --retry-delay 2 \
		-o "$2" "$1" || die "download of $1 failed"
}
fetch "$base/$version/$asset" "$tmp/$asset"
fetch "$base/$version/checksums.txt" "$tmp/checksums.txt"

want=$(awk -v a="$asset" '$2 == a || $2 == "*"a {print $1}' "$tmp/checksums.txt")
[ -n "$want" ] || die "checksums.txt of $version has no line for $asset: refusing to install an unverified binary"
if command -v sha256sum >/dev/null; then
	got=$(sha256sum "$tmp/$asset" | awk '{print $1}')
else
	got=$(shasum -a 256 "$tmp/$asset" | awk '{print $1}') # macOS
fi
[ "$got" = "$want" ] || die "checksum mismatch for $asset of $version: checksums.txt says $want, the download is $got; refusing to install"

dir="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-$tmp}}/mcp-eval/${version#v}/${asset%%.*}"
rm -rf "$dir" && mkdir -p "$dir"
case "$asset" in
*.zip)
	if command -v unzip >/dev/null; then
		unzip -q -o "$tmp/$asset" "$exe" -d "$dir"
	else
		powershell -NoProfile -Command "Expand-Archive -Force -Path '$tmp/$asset' -DestinationPath '$tmp/x'" &&
			cp "$tmp/x/$exe" "$dir/"
	fi
	;;
*) tar -xzf "$tmp/$asset" -C "$dir" "$exe" ;;
esac
[ -f "$dir/$exe" ] || die "$asset holds no $exe at its top level"
chmod +x "$dir/$exe"
"$dir/$exe" version >/dev/null || die "the installed $dir/$exe does not run on this runner"

if [ -n "${GITHUB_PATH:-}" ]; then
	echo "$dir" >>"$GITHUB_PATH"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	{
		echo "path=$dir/$exe"
		echo "version=$version"
	} >>"$GITHUB_OUTPUT"
fi
echo "mcp-eval $version installed at $dir/$exe (SHA-256 $got verified)"
