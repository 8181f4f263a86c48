#!/usr/bin/env bash
# Pins the actions to a release: runs.image in action.yml to the release's
# image BY DIGEST (the tag beside it, in a comment), and the setup action's
# version default to the release.
#
#   bash scripts/pin-image.sh ghcr.io/mcp-eval/mcp-eval v1.2.3 sha256:… [action.yml [setup/action.yml]]
#
# writes   image: "docker://ghcr.io/mcp-eval/mcp-eval@sha256:…" # v1.2.3
# A tag in a registry can be pushed again; a digest names one image for
# good, so `uses: mcp-eval/mcp-eval@<commit>` freezes the image too. The
# release workflow runs it after pushing the image (scripts/release-image.sh
# prints the digest); a test runs it on copies and checks that only those
# lines change. Running it twice with the same arguments changes nothing.
set -euo pipefail
usage="usage: pin-image.sh IMAGE VERSION DIGEST [ACTION_YML [SETUP_ACTION_YML]]"
image=${1:?$usage}
version=${2:?$usage}
digest=${3:?$usage}
file=${4:-action.yml}
setup=${5:-setup/action.yml}
if ! [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$ ]]; then
	echo "pin-image.sh: version $version is not vX.Y.Z or vX.Y.Z-PRERELEASE" >&2
	exit 2
fi
if ! [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]]; then
	echo "pin-image.sh: digest '$digest' is not sha256:<64 hex digits> (scripts/release-image.sh prints it)" >&2
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
sed -i.bak "s|^  image: \"docker://.*\$|  image: \"docker://$image@$digest\" # $version|" "$file"
sed -i.bak "s|^    default: \"v[0-9A-Za-z.-]*\" # pinned by the release workflow\$|    default: \"$version\" # pinned by the release workflow|" "$setup"
rm -f "$file.bak" "$setup.bak"
