#!/bin/sh
# Run in the image's build stage after `npm prune --omit=dev`: removes from APP (/app) what the
# running mock never reads, so the image carries only what runs (README, Run it as a container).
# The container tests (test/container) run the conformance suite against the result.
set -eu
app=$1
nm=$app/node_modules

# better-sqlite3: the compiled addon and its loader only, not the SQLite sources and the build tree.
sqlite=$nm/better-sqlite3
find "$sqlite/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
find "$sqlite/build/Release" -mindepth 1 ! -name better_sqlite3.node -exec rm -rf {} +
rm -rf "$sqlite/deps" "$sqlite/src"
# node-gyp's helpers that only the build needed.
rm -rf "$nm/prebuild-install" "$nm/node-gyp-build/bin.js"

# Browser and minified bundles of packages whose Node entry points are used (package.json exports).
rm -f "$nm"/bwip-js/dist/bwip-js.js "$nm"/bwip-js/dist/bwip-js.mjs "$nm"/bwip-js/dist/bwip-js-min.js "$nm"/bwip-js/dist/bwip-js-rn.*
rm -f "$nm"/pdfkit/js/pdfkit.standalone.js "$nm"/pdfkit/js/pdfkit.browser.*
rm -f "$nm"/fontkit/dist/browser*

# Everywhere: type declarations, source maps, docs, changelogs, tests and examples of packages.
find "$nm" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' -o -name '*.markdown' \
  -o -name '.eslintrc*' -o -name '.prettierrc*' -o -name '*.tsbuildinfo' \) -delete
find "$nm" -type d \( -name test -o -name tests -o -name __tests__ -o -name docs -o -name doc -o -name example -o -name examples -o -name .github \) -prune -exec rm -rf {} +
rm -rf "$nm/@types" "$nm/.cache" "$nm/.package-lock.json"

# dist/: the compiled JavaScript, validators and UI, without declarations and maps.
find "$app/dist" -type f \( -name '*.d.ts' -o -name '*.map' -o -name '.tsbuildinfo' \) -delete
