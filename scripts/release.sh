#!/usr/bin/env bash
# Builds the release archives: static binaries for Linux, macOS and Windows
# on amd64 and arm64, plus SHA-256 checksums, into dist/.
#
#   bash scripts/release.sh v1.2.3
set -euo pipefail
version=${1:?usage: release.sh VERSION}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf dist && mkdir -p dist
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	os=${target%/*} arch=${target#*/}
	exe=mcp-eval
	[ "$os" = windows ] && exe=mcp-eval.exe
	work=$(mktemp -d)
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$work/$exe" .
	cp README.md LICENSE* "$work/" 2>/dev/null || true
	name=mcp-eval_${os}_${arch}
	if [ "$os" = windows ]; then
		(cd "$work" && zip -q "$OLDPWD/dist/$name.zip" ./*)
	else
		tar -C "$work" -czf "dist/$name.tar.gz" .
	fi
	rm -rf "$work"
	echo "built dist/$name"
done
(cd dist && sha256sum ./* | sed 's| \./| |' > checksums.txt)
echo "wrote dist/checksums.txt"
