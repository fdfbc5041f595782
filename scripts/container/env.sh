# Sourced by the other scripts here: podman's settings and the cache of base images.
# shellcheck shell=bash
container_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export CONTAINERS_CONF="${CONTAINERS_CONF:-$container_dir/containers.conf}"
# Base tarballs, keyed by what they are made of (see base-image.sh); survives `podman system reset`.
SHIPMOCK_CONTAINER_CACHE="${SHIPMOCK_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shipmock-container}"
mkdir -p "$SHIPMOCK_CONTAINER_CACHE"
log() { printf '[container] %s\n' "$*" >&2; }
