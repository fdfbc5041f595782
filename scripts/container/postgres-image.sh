#!/usr/bin/env bash
# Builds the local PostgreSQL image compose.yaml's test uses instead of postgres:16-bookworm (no
# registry here): Debian's PostgreSQL 15 on the runtime base of base-image.sh. Prints its name.
set -euo pipefail
source "$(dirname "$0")/env.sh"
mapfile -t bases < <("$container_dir/base-image.sh")
name=localhost/shipmock-postgres:15-${bases[0]##*:}
if ! podman image exists "$name"; then
  log "building $name"
  podman build --format docker --network host --layers --build-arg "BASE=${bases[0]}" -t "$name" "$container_dir/postgres" >&2
fi
printf '%s\n' "$name"
