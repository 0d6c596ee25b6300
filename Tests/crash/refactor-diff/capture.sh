#!/bin/bash
# Stands in for cairn under the hostile-log scripts: keeps a copy of every log set they hand
# cairn (a directory of .cairn files, or one file), once per distinct content, in $CAPTURE_DIR,
# then runs the real binary ($CAPTURE_REAL) with the same arguments.
for a in "$@"; do
  if [ -d "$a" ] && ls "$a"/*.cairn >/dev/null 2>&1; then src=$a
  elif [ -f "$a" ] && [ "${a%.cairn}" != "$a" ]; then src=$a
  else continue; fi
  sum=$( (cd "$(dirname "$src")" && find "$(basename "$src")" -name '*.cairn' -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16)
  dest=$CAPTURE_DIR/$sum
  if [ ! -e "$dest" ]; then
    mkdir -p "$dest"
    if [ -d "$src" ]; then cp "$src"/*.cairn "$dest"/; else cp "$src" "$dest"/; fi
  fi
done
exec "$CAPTURE_REAL" "$@"
