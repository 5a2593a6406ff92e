"""Exits 1 naming the first line of LINES (a file) that FILE does not contain: checks that
every config the tuner wrote shows in IREE's configured IR (grep -F -f passes on any)."""
import sys

lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
text = open(sys.argv[2]).read()
if not lines:
    sys.exit("no lines in " + sys.argv[1])
for line in lines:
    if line not in text:
        sys.exit("not in %s: %s" % (sys.argv[2], line))
