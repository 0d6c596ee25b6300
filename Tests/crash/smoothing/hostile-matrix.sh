#!/bin/bash
# every kept hostile dir: every format with --smooth (+ options); no signal, exit 0..3, logs untouched, smoothed count = plain count
C="$(cd "$(dirname "$0")/../../.." && pwd)/.build/debug/cairn"
bad=0; runs=0
for d in "$@"; do
  before=$(sha256sum $d/*.cairn)
  plain=$($C convert $d --to csv -o - 2>/dev/null | wc -l)
  for o in "" "--fill-gaps" "--laps 1km" "--refilter" "--refilter --activity walk --fill-gaps" "--privacy-zone 47,8.5,300"; do
    sm=$($C convert $d --to csv --smooth $o -o - 2>/dev/null | wc -l); rc=$?
    if [ -z "$o" ] && [ "$sm" != "$plain" ]; then echo "COUNT $d plain=$plain smooth=$sm"; bad=1; fi
    for f in gpx geojson kml fit; do
      out=./hm.$f; [ $f = fit ] && out=./hmfit
      timeout 120 $C convert $d --to $f --smooth $o --force -o $out >/dev/null 2>./hm.err; rc=$?
      runs=$((runs+1))
      if [ $rc -gt 3 ]; then echo "RC $rc $d $f $o: $(head -c 300 ./hm.err)"; bad=1; fi
    done
  done
  after=$(sha256sum $d/*.cairn)
  [ "$before" != "$after" ] && { echo "MODIFIED $d"; bad=1; }
done
echo "runs $runs bad $bad"
