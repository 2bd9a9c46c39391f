#!/bin/sh
# Puts `harness` and `loom` on PATH from a clone: a symlink to each committed launcher in a bin
# directory (default ~/.local/bin). Run it after `pnpm build`; rebuilding needs no new link.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-"$HOME/.local/bin"}
mkdir -p "$dir"
ln -sf "$root/apps/cli/bin/harness.js" "$dir/harness"
ln -sf "$root/apps/loom/bin/loom.js" "$dir/loom"
echo "linked harness and loom in $dir"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "note: $dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
