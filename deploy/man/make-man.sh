#!/usr/bin/env bash
# Writes cairn(1) to stdout: cairn.1.in with its SUBCOMMANDS section made from the help of the
# binary given (run through RUNNER, e.g. qemu-aarch64-static, when it is not for this machine),
# so the page always says what that binary accepts.
#   make-man.sh BINARY [RUNNER]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${1:?usage: make-man.sh BINARY [RUNNER]}
runner=${2:-}
# Help unwrapped (cairn wraps it to $COLUMNS): one line per row for the parser below.
run() { if [ -n "$runner" ]; then COLUMNS=100000 "$runner" "$bin" "$@"; else COLUMNS=100000 "$bin" "$@"; fi; }
version=$(run --version)
subs=$(run --help | awk '/^SUBCOMMANDS:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[ -n "$subs" ] || { echo "make-man.sh: no subcommands in '$bin --help'" >&2; exit 1; }

section() {
    # Help layout: OVERVIEW:, USAGE:, then ARGUMENTS:/OPTIONS: rows (left column padded to 26).
    # roff-safe text: backslashes, '-' as a real minus, no line read as a request.
    awk '
        function e(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
        # A text line that starts with a quote or a dot would be a request: \& keeps it text.
        function t(s) { s = e(s); c = substr(s, 1, 1); return (c == "\047" || c == ".") ? "\\&" s : s }
        function flush() { if (left != "") { print ".TP"; print ".B " e(left); print t(text); left = ""; text = "" } }
        /^OVERVIEW: / { sub(/^OVERVIEW: /, ""); print t($0); next }
        /^USAGE: / { sub(/^USAGE: /, ""); print ".PP"; print ".nf"; print ".B " e($0); print ".fi"; next }
        /^[A-Z]+:$/ { flush(); print ".PP"; print ".I " substr($0, 1, length($0) - 1) ":"; next }
        /^  [^ ]/ {
            # A padded row has a space at column 26; a longer left column stands alone, its text
            # on the lines below.
            flush(); line = substr($0, 3)
            if (length($0) >= 27 && substr($0, 26, 1) == " ") { left = substr($0, 3, 24); text = substr($0, 27) }
            else { left = line; text = "" }
            sub(/ +$/, "", left); sub(/^ +/, "", text); next
        }
        /^                          / { sub(/^ +/, ""); text = (text == "" ? $0 : text " " $0); next }  # 26 spaces (mawk has no {26})
        END { flush() }
    '
}
body=$(for s in $subs; do
    echo ".SS \"cairn $s\""
    run help "$s" | section
done)
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/${MAN_DATE:-$(date -u +%Y-%m-%d)}/" "$here/cairn.1.in" \
    | BODY=$body awk '$0 == "@SUBCOMMANDS@" {print ENVIRON["BODY"]; next} {print}'
