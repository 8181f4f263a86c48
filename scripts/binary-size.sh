#!/usr/bin/env bash
# Measures the binary README.md names in its first paragraph: the stripped
# static linux/amd64 build, as the release archives hold it, and prints its
# size. With --check it also fails when the binary exceeds its budget of
# 15 MiB, or when README.md's one figure ("one static Go binary (N MB") is
# not this size rounded to whole MB, so the README cannot drift from it.
#
#   bash scripts/binary-size.sh [--check]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags='-s -w' -o "$work/mcp-eval" .
bytes=$(wc -c <"$work/mcp-eval" | tr -d ' ')
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
whole=$(awk -v b="$bytes" 'BEGIN { printf "%d", b / 1e6 + 0.5 }')
echo "mcp-eval stripped, linux/amd64: $mb MB ($bytes bytes)"
[ "${1:-}" = --check ] || exit 0
budget=$((15 * 1024 * 1024))
if [ "$bytes" -gt "$budget" ]; then
	echo "the binary exceeds its budget of 15 MiB ($budget bytes)"
	exit 1
fi
stated=$(sed -n 's/.*one static Go binary (\([0-9][0-9]*\) MB.*/\1/p' README.md | head -n 1)
if [ "$stated" != "$whole" ]; then
	echo "README.md says the binary is ${stated:-(no figure)} MB; it is $whole MB: change its first paragraph"
	exit 1
fi
