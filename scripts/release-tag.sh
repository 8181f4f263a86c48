#!/usr/bin/env bash
# Checks a release tag before anything is built or pushed, and prints what
# the release workflow needs as KEY=value lines (for $GITHUB_OUTPUT):
#
#   bash scripts/release-tag.sh v1.2.3        # version=v1.2.3 major=v1 prerelease=false
#   bash scripts/release-tag.sh v1.3.0-rc.1   # a pre-release: the major tag stays where it is
#
# The tag must be vMAJOR.MINOR.PATCH, optionally with a pre-release suffix
# (-rc.1, -beta2). Its major must be the one the README and the example
# workflows tell users to pin (uses: mcp-eval/mcp-eval@vN): a release whose
# major tag no document names would publish tags nobody uses, while the
# documented @vN kept pointing at nothing or at an older release.
set -euo pipefail
tag=${1:?usage: release-tag.sh TAG}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! [[ $tag =~ ^v([0-9]+)\.[0-9]+\.[0-9]+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$ ]]; then
	echo "release-tag.sh: tag $tag is not vX.Y.Z or vX.Y.Z-PRERELEASE (v1.2.3, v1.3.0-rc.1)" >&2
	exit 2
fi
major=v${BASH_REMATCH[1]}
prerelease=false
[ -n "${BASH_REMATCH[2]}" ] && prerelease=true
# The majors the documents pin: every "mcp-eval/mcp-eval@vN" and
# "mcp-eval/mcp-eval/setup@vN".
docs=$(grep -rhoE 'mcp-eval/mcp-eval(/setup)?@v[0-9]+' README.md examples/workflows | sed 's/.*@//' | sort -u)
if [ "$docs" != "$major" ]; then
	echo "release-tag.sh: tag $tag would move the tag $major, but README.md and examples/workflows pin $(echo $docs | tr '\n' ' ')" >&2
	echo "  tag a release of the major the documents name, or change every uses: line to @$major first" >&2
	exit 1
fi
echo "version=$tag"
echo "major=$major"
echo "prerelease=$prerelease"
