#!/bin/sh
# make vm-try's script for the example: /proc/loadavg is patched, and
# klpc disable restores it.
set -eu
cat /proc/loadavg
grep -q ' klpc$' /proc/loadavg || { echo "FAIL: /proc/loadavg is not patched"; exit 1; }
klpc list -v
klpc disable klpc_loadavg_fix
cat /proc/loadavg
! grep -q ' klpc$' /proc/loadavg || { echo "FAIL: /proc/loadavg still patched"; exit 1; }
klpc enable klpc_loadavg_fix
klpc status
