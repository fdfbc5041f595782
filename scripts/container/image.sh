#!/usr/bin/env bash
# Builds shipmock's image from the root Dockerfile with podman, on the local base images of
# base-image.sh (no registry needed): scripts/container/image.sh [NAME] (default localhost/shipmock:dev).
# --format docker: the OCI format drops HEALTHCHECK. --network host: `npm ci` reaches the registry.
# Podman's layer cache makes a rebuild without changes take seconds.
set -euo pipefail
source "$(dirname "$0")/env.sh"
root=$(cd "$container_dir/../.." && pwd)
name=${1:-localhost/shipmock:dev}
mapfile -t bases < <("$container_dir/base-image.sh")
log "building $name on ${bases[0]} (build stage ${bases[1]})"
podman build --format docker --network host --layers \
  --build-arg "BASE=${bases[0]}" --build-arg "BUILD_BASE=${bases[1]}" \
  -t "$name" -f "$root/Dockerfile" "$root" >&2
printf '%s\n' "$name"
