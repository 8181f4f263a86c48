# syntax=docker/dockerfile:1
# The GitHub Action's image: a static mcp-eval on a distroless base.
#
# Rules for a Docker container action (GitHub "Dockerfile support for GitHub
# Actions"): the container must run as root (the runner's workspace and file
# commands are owned by root), so the final stage has no USER, and it must not
# set WORKDIR (the runner mounts the workspace and sets the working directory).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/mcp-eval .

# distroless/static has CA certificates and tzdata, nothing else; the
# default (root) tag, not :nonroot.
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/mcp-eval /usr/local/bin/mcp-eval
ENTRYPOINT ["/usr/local/bin/mcp-eval"]
CMD ["action"]
