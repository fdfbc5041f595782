#!/bin/sh
# The image's entry point: `docker run shipmock --seed 7` is `shipmock serve --seed 7`; a command
# (serve, verify, proxy, version, help) is run as given. exec: Node is PID 1 and gets the signals.
case "${1:-}" in
  --version | -v | --help) ;;
  '' | -*) set -- serve "$@" ;;
esac
exec node /app/bin/shipmock.js "$@"
