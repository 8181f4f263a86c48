#!/usr/bin/env bash
# A private Docker daemon for the Docker action's end-to-end test and its
# benchmark: state in a short temporary directory, no bridge network, no
# iptables (every container runs with --network host), stopped by its pid.
#
#   eval "$(bash .ci/dockerd.sh start)"   # prints DOCKER_HOST=… and MCP_EVAL_DOCKERD_DIR=…
#   bash .ci/dockerd.sh stop              # uses MCP_EVAL_DOCKERD_DIR
#
# start exits 3 with one line on stderr when dockerd is missing or does not
# answer within 30 s (callers skip the Docker test with that line).
set -euo pipefail
case "${1:-}" in
start)
	if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
		echo "dockerd.sh: no dockerd/docker on PATH (apt-get install -y docker.io)" >&2
		exit 3
	fi
	# Short paths: the socket path must stay under the 108-byte limit.
	dir=$(mktemp -d /tmp/dkd.XXXX)
	dockerd --bridge=none --iptables=false --ip-masq=false \
		--data-root "$dir/d" --exec-root "$dir/e" -H "unix://$dir/s" \
		--pidfile "$dir/p" >"$dir/log" 2>&1 &
	echo $! >"$dir/pid"
	for _ in $(seq 60); do
		if DOCKER_HOST="unix://$dir/s" docker version >/dev/null 2>&1; then
			echo "export DOCKER_HOST=unix://$dir/s MCP_EVAL_DOCKERD_DIR=$dir"
			exit 0
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			break
		fi
		sleep 0.5
	done
	echo "dockerd.sh: dockerd did not start: $(tail -n 1 "$dir/log")" >&2
	kill "$(cat "$dir/pid")" 2>/dev/null || true
	exit 3
	;;
stop)
	dir=${MCP_EVAL_DOCKERD_DIR:?MCP_EVAL_DOCKERD_DIR is not set}
	[ -f "$dir/pid" ] || exit 0
	pid=$(cat "$dir/pid")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 40); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	kill -9 "$pid" 2>/dev/null || true
	# Overlay mounts under the data root go with the daemon; what is left is files.
	umount -R "$dir/d" 2>/dev/null || true
	umount "$dir/e/netns/default" 2>/dev/null || true
	rm -rf "$dir" 2>/dev/null || true
	;;
*)
	echo "usage: dockerd.sh start|stop" >&2
	exit 2
	;;
esac
