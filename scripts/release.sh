#!/usr/bin/env bash
# Builds the release assets into dist/: static binaries for Linux, macOS and
# Windows on amd64 and arm64, one archive each, and checksums.txt; plus the
# Linux binaries unpacked under dist/image/ for the Docker image's release
# target (the image holds the same bytes as the archives).
#
#   bash scripts/release.sh v1.2.3
#
# Archive members sit at the top level under their plain names (mcp-eval or
# mcp-eval.exe, README.md, LICENSE), so the documented commands work:
#   tar -xzf mcp-eval_linux_amd64.tar.gz mcp-eval
#   unzip mcp-eval_windows_amd64.zip mcp-eval.exe
#   sha256sum --ignore-missing -c checksums.txt
# The setup action (setup/install.sh) relies on these names.
set -euo pipefail
version=${1:?usage: release.sh VERSION}
targets=${MCP_EVAL_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# MCP_EVAL_DIST: an absolute output directory instead of dist/ (tests).
dist=${MCP_EVAL_DIST:-$PWD/dist}
rm -rf "$dist" && mkdir -p "$dist"
for target in $targets; do
	os=${target%/*} arch=${target#*/}
	exe=mcp-eval
	[ "$os" = windows ] && exe=mcp-eval.exe
	work=$(mktemp -d)
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$work/$exe" .
	cp README.md LICENSE "$work/"
	name=mcp-eval_${os}_${arch}
	if [ "$os" = windows ]; then
		(cd "$work" && zip -q -X "$dist/$name.zip" "$exe" README.md LICENSE)
	else
		# Named members, not ".": tar would store them as ./mcp-eval, and
		# `tar -xzf … mcp-eval` would then find nothing.
		tar -C "$work" -czf "$dist/$name.tar.gz" "$exe" README.md LICENSE
	fi
	if [ "$os" = linux ]; then
		mkdir -p "$dist/image/linux_$arch"
		cp "$work/$exe" "$dist/image/linux_$arch/mcp-eval"
	fi
	rm -rf "$work"
	echo "built $dist/$name"
done
(cd "$dist" && sha256sum -- mcp-eval_* >checksums.txt)
echo "wrote $dist/checksums.txt"
