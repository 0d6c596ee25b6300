#!/usr/bin/env bash
# Writes cairn's bash completion to stdout, made from the help of the binary given (run through
# RUNNER, e.g. qemu-aarch64-static, when it is not for this machine), so it always completes
# what that binary accepts: the subcommands, each one's options, and file names.
#   make-completion.sh BINARY [RUNNER]
set -euo pipefail
bin=${1:?usage: make-completion.sh BINARY [RUNNER]}
runner=${2:-}
# Help unwrapped (cairn wraps it to $COLUMNS): one line per option.
run() { if [ -n "$runner" ]; then COLUMNS=100000 "$runner" "$bin" "$@"; else COLUMNS=100000 "$bin" "$@"; fi; }
subs=$(run --help | awk '/^SUBCOMMANDS:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[ -n "$subs" ] || { echo "make-completion.sh: no subcommands in '$bin --help'" >&2; exit 1; }
cat <<'HEAD'
# bash completion for cairn(1), made by deploy/man/make-completion.sh from cairn's own help.
_cairn() {
    local cur=${COMP_WORDS[COMP_CWORD]} opts
    if [ "$COMP_CWORD" -eq 1 ]; then
HEAD
printf '        mapfile -t COMPREPLY < <(compgen -W "%s --help --version" -- "$cur")\n' "$(echo $subs)"
cat <<'MID'
        return
    fi
    case ${COMP_WORDS[1]} in
MID
for s in $subs; do
    # The options: every -x and --name in the left column of the OPTIONS rows.
    opts=$(run help "$s" | awk '/^OPTIONS:/ {on = 1; next} on && /^  -/ {
        left = substr($0, 3, 24)  # the left column: 24 wide (a longer one stands alone, cut here)
        n = split(left, w, /[ ,]+/); for (i = 1; i <= n; i++) if (w[i] ~ /^--?[a-z][a-z0-9-]*$/ && !seen[w[i]]++) printf "%s ", w[i] }')
    printf '        %s) opts="%s" ;;\n' "$s" "${opts% }"
done
printf '        help) mapfile -t COMPREPLY < <(compgen -W "%s" -- "$cur"); return ;;\n' "$(echo $subs)"
cat <<'TAIL'
        *) opts="" ;;
    esac
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}
complete -o filenames -o bashdefault -F _cairn cairn
TAIL
