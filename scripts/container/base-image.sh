#!/usr/bin/env bash
# Builds the local stand-ins for node:20-bookworm-slim when no container registry can be reached:
# Debian bookworm (debootstrap --variant=minbase, from this machine's Debian mirror) with this
# machine's Node and npm copied in. Two images:
#   localhost/shipmock-node:KEY        the runtime base (Node, CA certificates)
#   localhost/shipmock-node-build:KEY  the same plus python3, make and g++ (node-gyp, better-sqlite3)
# KEY hashes the mirror, the suite, Node's version and this script, so a change of any rebuilds.
# Each base is kept as a tarball in $SHIPMOCK_CONTAINER_CACHE: a later run (or a fresh podman
# store) imports it in seconds instead of running debootstrap again.
# Prints the two image names, runtime first, one per line. Needs root (debootstrap, chroot).
set -euo pipefail
source "$(dirname "$0")/env.sh"
[ "$(id -u)" -eq 0 ] || { log 'base-image.sh needs root (debootstrap, chroot, mount)'; exit 1; }

suite=bookworm
mirror=${SHIPMOCK_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  # The first Debian archive apt uses here (deb822 sources, then the classic list).
  mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\/\{0,1\}\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  [ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\/debian\/\{0,1\}\)[[:space:]].*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi
node_bin=$(command -v node)
node_version=$("$node_bin" --version)
key=$(printf '%s\n' "$mirror" "$suite" "$node_version" "$(uname -m)" "$(cat "$0")" | sha256sum | cut -c1-12)
runtime_image=localhost/shipmock-node:$key
build_image=localhost/shipmock-node-build:$key
runtime_tar=$SHIPMOCK_CONTAINER_CACHE/shipmock-node-$key.tar
build_tar=$SHIPMOCK_CONTAINER_CACHE/shipmock-node-build-$key.tar

have_image() { podman image exists "$1"; }

if have_image "$runtime_image" && have_image "$build_image"; then
  log "base images $key present"
elif [ -s "$runtime_tar" ] && [ -s "$build_tar" ]; then
  log "importing cached base tarballs $key"
  podman import --quiet "$runtime_tar" "$runtime_image" >/dev/null
  podman import --quiet "$build_tar" "$build_image" >/dev/null
else
  log "building base images $key: debootstrap $suite from $mirror, Node $node_version"
  root=$(mktemp -d "${TMPDIR:-/tmp}/shipmock-rootfs.XXXXXX")
  trap 'umount "$root/proc" 2>/dev/null || true; rm -rf "$root"' EXIT
  debootstrap --variant=minbase --include=ca-certificates "$suite" "$root" "$mirror" >"$root.log" 2>&1 || { cat "$root.log" >&2; exit 1; }
  rm -f "$root.log"

  # Node where the official images have it; npm reads its global config from <prefix>/etc/npmrc.
  node_prefix=$(dirname "$(dirname "$node_bin")")
  install -m 0755 "$node_bin" "$root/usr/bin/node"
  mkdir -p "$root/usr/lib/node_modules" "$root/usr/etc"
  cp -a "$node_prefix/lib/node_modules/npm" "$root/usr/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
  # This machine's npm settings (registry, cafile) and CA bundle, so `npm ci` works in a build.
  npm_global=$(npm config get globalconfig)
  [ ! -f "$npm_global" ] || cp "$npm_global" "$root/usr/etc/npmrc"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  # What an image does not need: apt lists, docs, man pages, locales.
  clean() { rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/info/* "$1"/usr/share/locale/*; }
  clean "$root"
  tar --numeric-owner -C "$root" -cf "$runtime_tar.part" . && mv "$runtime_tar.part" "$runtime_tar"

  # The build base: compilers for native modules, and Node's headers (nodedir=/usr: node-gyp
  # downloads nothing).
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount -t proc proc "$root/proc"
  chroot "$root" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null
  umount "$root/proc"
  cp -a "$node_prefix/include/node" "$root/usr/include/node"
  printf 'nodedir=/usr\n' >>"$root/usr/etc/npmrc"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  clean "$root"
  : >"$root/etc/resolv.conf"
  tar --numeric-owner -C "$root" -cf "$build_tar.part" . && mv "$build_tar.part" "$build_tar"

  podman import --quiet "$runtime_tar" "$runtime_image" >/dev/null
  podman import --quiet "$build_tar" "$build_image" >/dev/null
fi
printf '%s\n%s\n' "$runtime_image" "$build_image"
