#!/bin/sh
# A stand-in for cuobjdump --dump-sass: a test "cubin" is text holding the SASS lines.
[ "$1" = "--dump-sass" ] || exit 2
cat "$2"
