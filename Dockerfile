# The GitHub Action's image: a static mcp-eval on a minimal base.
#
# Rules for a Docker container action (GitHub "Dockerfile support for GitHub
# Actions"): the container must run as root (the runner's workspace and file
# commands are owned by root), so the final stages have no USER, and they must
# not set WORKDIR (the runner passes --workdir /github/workspace).
#
# Two targets end in the same image layout:
#   release  the static binary scripts/release.sh built for the release
#            archives (dist/image/linux_<arch>/mcp-eval), so the published
#            image holds byte for byte the binary users can verify against
#            checksums.txt; no compiler, no QEMU for the arm64 variant. The
#            release workflow builds this target.
#   source   (the default, last stage) compiles from the build context.
#
# The default target needs BuildKit (docker buildx build ., the default
# builder since Docker 23): the classic builder (DOCKER_BUILDKIT=0) builds
# every stage before the target, so it would build release too, which needs
# dist/ from scripts/release.sh. The classic builder builds only
# --target release, with --build-arg TARGETARCH=<arch> (BuildKit sets it from
# --platform), as scripts/release-image.sh and the tests do.
#
# The base images are build arguments, pinned by digest by default, so that
# an air-gapped build (the docker end-to-end test) can name locally made
# bases: --build-arg BASE_IMAGE=... --target release.
ARG GO_IMAGE=golang:1.26@sha256:3aff6657219a4d9c14e27fb1d8976c49c29fddb70ba835014f477e1c70636647
# distroless/static has CA certificates, tzdata and /tmp, nothing else; the
# default (root) variant, not :nonroot.
ARG BASE_IMAGE=gcr.io/distroless/static-debian12@sha256:4b2a093ef4649bccd586625090a3c668b254cfe180dee54f4c94f3e9bd7e381e

FROM ${BASE_IMAGE} AS release
# Set by buildx for each platform; the legacy builder needs --build-arg.
ARG TARGETARCH
COPY dist/image/linux_${TARGETARCH}/mcp-eval /usr/local/bin/mcp-eval
ENTRYPOINT ["/usr/local/bin/mcp-eval"]
CMD ["action"]

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/mcp-eval .

FROM ${BASE_IMAGE} AS source
COPY --from=build /out/mcp-eval /usr/local/bin/mcp-eval
ENTRYPOINT ["/usr/local/bin/mcp-eval"]
CMD ["action"]
