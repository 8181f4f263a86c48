#!/usr/bin/env bash
# The Docker action's start-up cost, measured with a real Docker engine:
# the prebuilt image (action.yml's docker://…) against building from source
# at job start (the old `runs.image: Dockerfile`), side by side.
#
#   bash bench/docker-action.sh [-n RUNS]
#
# Needs dockerd (apt-get install -y docker.io); a private daemon without a
# bridge network is started and stopped here (.ci/dockerd.sh). No registry is
# reachable from the test machines, so:
#   - the image is the Dockerfile's release target on a locally made base (an
#     empty root with /tmp; distroless/static adds about 2 MB), and its "pull"
#     is `docker load` of the gzip'd `docker save`: the same bytes a pull
#     downloads and unpacks, without the network;
#   - building from source is timed as the Dockerfile's compile step
#     (CGO_ENABLED=0 go build -trimpath with an empty build cache, modules
#     already downloaded), without the golang image's pull (~300 MB) and the
#     module download, so the ratio understates the old way's cost.
# "First check" is the first check line of the terminal report in the
# container's stdout, with the fixture server on the host (--network host).
# Prints medians; exit 1 when the prebuilt path's median is not under the
# compile's, 2 on a setup error.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
runs=${BENCH_RUNS:-5}
compile_runs=${BENCH_COMPILE_RUNS:-3}
[ "${1:-}" = -n ] && runs=$2
out=${BENCH_OUT:-bench/out}/docker-action
mkdir -p "$out"
work=$(mktemp -d /tmp/bda.XXXX)

started=
cleanup() {
	if [ -n "${server_pid:-}" ]; then kill "$server_pid" 2>/dev/null || true; fi
	if [ -n "$started" ]; then bash .ci/dockerd.sh stop || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
if ! docker version >/dev/null 2>&1; then
	eval "$(bash .ci/dockerd.sh start)" || exit 2
	started=1
fi
export DOCKER_BUILDKIT=0

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

arch=$(go env GOARCH)
mkdir -p "$work/ctx/dist/image/linux_$arch" "$work/base/rootfs/tmp" "$work/base/rootfs/etc"
CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags '-s -w -X main.version=bench' -o "$work/ctx/dist/image/linux_$arch/mcp-eval" .
go build -o "$work/weather" ./examples/weather-server
cp Dockerfile .dockerignore "$work/ctx/"
chmod 1777 "$work/base/rootfs/tmp"
echo 'root:x:0:0:root:/root:/sbin/nologin' >"$work/base/rootfs/etc/passwd"
printf 'FROM scratch\nCOPY rootfs/ /\n' >"$work/base/Dockerfile"
docker build -q -t mcp-eval-bench-base:local "$work/base" >/dev/null 2>&1
docker build -q --target release --build-arg BASE_IMAGE=mcp-eval-bench-base:local \
	--build-arg TARGETARCH="$arch" -t mcp-eval-bench:local "$work/ctx" >/dev/null 2>&1
size=$(docker image inspect -f '{{.Size}}' mcp-eval-bench:local)
docker save mcp-eval-bench:local | gzip -c >"$work/image.tar.gz"
pull=$(stat -c %s "$work/image.tar.gz")

# The server the step evaluates: the example weather server over HTTP on the host.
port=$((20000 + RANDOM % 20000))
"$work/weather" --http "127.0.0.1:$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break; sleep 0.1; done

mkdir -p "$work/ws" "$work/tmp/_runner_file_commands"
# One step as the runner starts it; prints seconds to the first check line.
step() {
	local t0 first
	: >"$work/tmp/_runner_file_commands/out"
	t0=$(now)
	first=$(env "INPUT_SERVER-URL=http://127.0.0.1:$port/mcp" INPUT_RUNS=1 GITHUB_WORKSPACE=/github/workspace \
		GITHUB_OUTPUT=/github/file_commands/out RUNNER_TEMP=/github/runner_temp \
		docker run --rm --workdir /github/workspace --network host \
		-e INPUT_SERVER-URL -e INPUT_RUNS -e GITHUB_WORKSPACE -e GITHUB_OUTPUT -e RUNNER_TEMP -e GITHUB_ACTIONS=true -e CI=true \
		-v "$work/tmp:/github/runner_temp" -v "$work/tmp/_runner_file_commands:/github/file_commands" -v "$work/ws:/github/workspace" \
		mcp-eval-bench:local action 2>>"$work/step.err" | while IFS= read -r line; do
			if [[ $line =~ ^[[:space:]]+[^[:space:]]+\ [a-z-]+/ ]]; then now; break; fi
		done) || true
	[ -n "$first" ] || { echo "no check line; see $work/step.err" >&2; tail -3 "$work/step.err" >&2; exit 2; }
	echo "$first - $t0" | bc
}
for f in prebuilt pull compile; do : >"$out/$f.txt"; done
for _ in $(seq "$runs"); do
	step >>"$out/prebuilt.txt"
	docker image rm -f mcp-eval-bench:local >/dev/null
	t0=$(now)
	gunzip -c "$work/image.tar.gz" | docker load -q >/dev/null
	t1=$(now)
	s=$(step)
	echo "$t1 - $t0 + $s" | bc >>"$out/pull.txt"
done
for _ in $(seq "$compile_runs"); do
	cache=$(mktemp -d "$work/gocache.XXXX")
	t0=$(now)
	GOCACHE=$cache CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/compiled" .
	t1=$(now)
	s=$(step)
	echo "$t1 - $t0 + $s" | bc >>"$out/compile.txt"
	rm -rf "$cache"
done
pre=$(median <"$out/prebuilt.txt")
pl=$(median <"$out/pull.txt")
cmp=$(median <"$out/compile.txt")
printf 'image: %s bytes unpacked, %s bytes gzip (pull size without the ~2 MB distroless base)\n' "$size" "$pull"
printf 'start to first check, image present:        median %.2fs over %d runs\n' "$pre" "$runs"
printf 'start to first check, image loaded ("pull"): median %.2fs over %d runs\n' "$pl" "$runs"
printf 'start to first check, compiled at job start: median %.2fs over %d runs (compile + run)\n' "$cmp" "$compile_runs"
printf 'ratio compile/loaded: %.1fx (%s, %d CPUs, %s)\n' "$(echo "$cmp / $pl" | bc -l)" "$(date -u +%F)" "$(nproc)" "$(go version | cut -d' ' -f3)"
docker image rm -f mcp-eval-bench:local mcp-eval-bench-base:local >/dev/null || true
[ "$(echo "$pl < $cmp" | bc)" = 1 ] || exit 1
