/** The script every Harbor task directory shares: building the task's repository in the container. */
export { TASK_REPO } from "../families/harbor-kit.js";

/**
 * environment/start/start.sh: builds the repository at "$1" from the files beside it: an empty
 * repository of the right object format takes the bundle's objects (no ref), then gitgood's own git
 * state of the sandbox (HEAD, refs, index, shallow, a merge or rebase in progress), then the files of
 * the work tree: the index's content, overlaid with the files that differ from it, less the deleted ones.
 */
export const START_SH = `#!/bin/sh
# Builds the task's repository at "$1" as gitgood's answer-free sandbox held it at the task's start.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$1
mkdir -p "$repo"
git init -q --template= --object-format="$(cat "$here/object-format")" "$repo"
if [ -f "$here/git/shallow" ]; then cp "$here/git/shallow" "$repo/.git/shallow"; fi
git -C "$repo" bundle unbundle "$here/repo.bundle" >/dev/null
cp -R "$here/git/." "$repo/.git/"
cd "$repo"
git checkout-index --all --force 2>/dev/null || true
cp -a "$here/work/." "$repo/"
xargs -0 -r rm -f -- < "$here/deleted"
`;
