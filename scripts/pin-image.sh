#!/usr/bin/env bash
# Rewrites runs.image in an action.yml to a released image:
#
#   bash scripts/pin-image.sh ghcr.io/mcp-eval/mcp-eval v1.2.3 [action.yml]
#
# The release workflow runs it after pushing the image; a test runs it on a
# copy and checks that only that line changes.
set -euo pipefail
image=${1:?usage: pin-image.sh IMAGE VERSION [FILE]}
version=${2:?usage: pin-image.sh IMAGE VERSION [FILE]}
file=${3:-action.yml}
if ! [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "pin-image.sh: version $version is not vX.Y.Z" >&2
	exit 2
fi
n=$(grep -c '^  image: "docker://' "$file" || true)
if [ "$n" != 1 ]; then
	echo "pin-image.sh: $file has $n 'image: \"docker://…' lines under runs, want 1" >&2
	exit 1
fi
sed -i.bak "s|^  image: \"docker://.*\"\$|  image: \"docker://$image:$version\"|" "$file"
rm -f "$file.bak"
