#!/usr/bin/env bash
# Pins the actions to a release: runs.image in action.yml to the release's
# image, and the setup action's version default to the release.
#
#   bash scripts/pin-image.sh ghcr.io/mcp-eval/mcp-eval v1.2.3 [action.yml [setup/action.yml]]
#
# The release workflow runs it after pushing the image; a test runs it on
# copies and checks that only those lines change.
set -euo pipefail
usage="usage: pin-image.sh IMAGE VERSION [ACTION_YML [SETUP_ACTION_YML]]"
image=${1:?$usage}
version=${2:?$usage}
file=${3:-action.yml}
setup=${4:-setup/action.yml}
if ! [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$ ]]; then
	echo "pin-image.sh: version $version is not vX.Y.Z or vX.Y.Z-PRERELEASE" >&2
	exit 2
fi
one() { # FILE PATTERN: the line to rewrite must be there exactly once
	local n
	n=$(grep -c -- "$2" "$1" || true)
	if [ "$n" != 1 ]; then
		echo "pin-image.sh: $1 has $n lines matching '$2', want 1" >&2
		exit 1
	fi
}
one "$file" '^  image: "docker://'
one "$setup" '^    default: "v[0-9A-Za-z.-]*" # pinned by the release workflow$'
sed -i.bak "s|^  image: \"docker://.*\"\$|  image: \"docker://$image:$version\"|" "$file"
sed -i.bak "s|^    default: \"v[0-9A-Za-z.-]*\" # pinned by the release workflow\$|    default: \"$version\" # pinned by the release workflow|" "$setup"
rm -f "$file.bak" "$setup.bak"
