#!/usr/bin/env bash
# The thread-sanitizer pass CI runs; see scripts/sanitize.sh.
exec bash "$(dirname "$0")/sanitize.sh" thread "$@"
