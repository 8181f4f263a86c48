#!/usr/bin/env bash
# Builds and pushes the Docker action's image for a release, and checks that
# anyone can pull it: the release workflow's image step.
#
#   bash scripts/release-image.sh ghcr.io/mcp-eval/mcp-eval v1.2.3 >> "$GITHUB_OUTPUT"
#
# prints digest=sha256:… (the multi-arch index) on stdout; everything else
# goes to stderr. For each platform it builds the Dockerfile's release target
# (the release archives' own static binaries from dist/image/: no compile, no
# emulation, so the plain `docker build` of any Docker engine does it) and
# pushes it as IMAGE:VERSION-ARCH; `docker manifest` then joins them in one
# index, pushed as IMAGE:VERSION. The index's digest is what action.yml names
# (scripts/pin-image.sh): a tag can be pushed again, a digest cannot change.
#
# Last, the index is read and pulled BY DIGEST WITHOUT CREDENTIALS (an empty
# DOCKER_CONFIG), as a user's runner pulls it. A new package on ghcr.io is
# private, so the first release fails here, loudly, before any tag moves or
# anything is published; README.md (Releasing) says how to make it public.
#
# MCP_EVAL_IMAGE_PLATFORMS  platforms (default "linux/amd64 linux/arm64")
# MCP_EVAL_BASE_IMAGE       another BASE_IMAGE for the Dockerfile (a mirror
#                           of distroless/static, or a registry with no
#                           route to gcr.io)
set -euo pipefail
usage="usage: release-image.sh IMAGE VERSION"
image=${1:?$usage}
version=${2:?$usage}
platforms=${MCP_EVAL_IMAGE_PLATFORMS:-linux/amd64 linux/arm64}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Buildx (GitHub's runners) would otherwise add a provenance attestation to
# each platform's push, making it an index that `docker manifest create`
# refuses; the release's provenance is attested by the workflow instead.
export BUILDX_NO_DEFAULT_ATTESTATIONS=1

# The registry's host: a loopback registry speaks plain HTTP, which the
# engine allows for 127.0.0.0/8 and `docker manifest` only with --insecure.
host=${image%%/*}
insecure=()
case $host in
127.* | localhost | localhost:* | \[::1\]*) insecure=(--insecure) ;;
esac

build_args=()
base=$(sed -n 's/^ARG BASE_IMAGE=//p' Dockerfile)
if [ -n "${MCP_EVAL_BASE_IMAGE:-}" ]; then
	base=$MCP_EVAL_BASE_IMAGE
	build_args+=(--build-arg "BASE_IMAGE=$base")
fi

refs=()
for platform in $platforms; do
	arch=${platform#*/}
	if [ ! -x "dist/image/linux_$arch/mcp-eval" ]; then
		echo "release-image.sh: no dist/image/linux_$arch/mcp-eval: run scripts/release.sh $version first" >&2
		exit 1
	fi
	ref=$image:$version-$arch
	# TARGETARCH is set by BuildKit from --platform; the classic builder
	# needs it as a build argument, --pull and --no-cache (its image store
	# holds one platform per reference and its cache ignores the platform:
	# the arm64 build would start from the amd64 base and fail). The stage
	# is one COPY: nothing to gain from a cache.
	# Nor can it hold one digest for two platforms ("Cannot overwrite
	# digest"): the previous platform's base is untagged first.
	docker image rm "$base" >/dev/null 2>&1 || true
	docker build --pull --no-cache --platform "$platform" --target release --build-arg "TARGETARCH=$arch" "${build_args[@]}" -t "$ref" . >&2
	docker push "$ref" >&2
	refs+=("$ref")
done

docker manifest rm "$image:$version" >/dev/null 2>&1 || true
docker manifest create "${insecure[@]}" "$image:$version" "${refs[@]}" >&2
digest=$(docker manifest push "${insecure[@]}" --purge "$image:$version" | tail -n 1)
if ! [[ $digest =~ ^sha256:[0-9a-f]{64}$ ]]; then
	echo "release-image.sh: docker manifest push printed no digest: $digest" >&2
	exit 1
fi
echo "pushed $image:$version = $image@$digest" >&2

# The check a user's runner makes: no credentials at all.
anon=$(mktemp -d)
trap 'rm -rf "$anon"' EXIT
private() {
	echo "::error title=image not public::$image@$digest cannot be pulled without credentials: $1" >&2
	local path=${image#*/}
	cat >&2 <<EOF
release-image.sh: every job that uses the action would fail at "Set up job" with this error.
  A package is private when ghcr.io first creates it. Make it public once, on
  https://github.com/orgs/${path%%/*}/packages/container/${path#*/}/settings
  (a user's package: https://github.com/users/${path%%/*}/packages/container/${path#*/}/settings),
  Danger Zone > Change visibility > Public (README.md, Releasing); then re-run this workflow.
  Nothing was tagged or published.
EOF
	exit 1
}
if ! DOCKER_CONFIG=$anon docker manifest inspect "${insecure[@]}" "$image@$digest" >"$anon/index.json" 2>"$anon/err"; then
	private "$(tr '\n' ' ' <"$anon/err")"
fi
for platform in $platforms; do
	os=${platform%/*} arch=${platform#*/}
	if ! grep -q "\"architecture\": \"$arch\"" "$anon/index.json" || ! grep -q "\"os\": \"$os\"" "$anon/index.json"; then
		echo "release-image.sh: the index $image@$digest lacks $platform:" >&2
		cat "$anon/index.json" >&2
		exit 1
	fi
done
if ! DOCKER_CONFIG=$anon docker pull "$image@$digest" >"$anon/pull" 2>&1; then
	private "$(tr '\n' ' ' <"$anon/pull")"
fi
echo "pulled $image@$digest without credentials" >&2
echo "digest=$digest"
