#!/usr/bin/env bash
# Install environment.yml's pinned lists (written by tools/env_to_requirements.py) and the project into the venv.
# uv does it in about 35 s where pip takes about 105 s on 2 cores (a tenth of `make test` on a fresh clone); pip does
# it where uv cannot be installed or fails, with the same pins, so the venv is the same either way.
# --compile-bytecode: pip writes each module's .pyc at install and uv does not by default; where PYTHONDONTWRITEBYTECODE
# is set (as on these machines) no process would ever write them, and every one would compile torch, pandas and the
# rest from source again (measured: `make test` took 19.5 min instead of 14).
# Usage: tools/install_venv.sh <venv> <uv version>
set -euo pipefail
venv=$1 uv_version=$2
bin=$venv/bin
pip=("$bin/pip" install --disable-pip-version-check -q)

with_uv() {
    "${pip[@]}" "uv==$uv_version" || return 1
    local options
    options=$("$bin/python" tools/env_to_requirements.py --uv-options "$bin/pip") || return 1  # pip's find-links (torch)
    local uv=("$bin/uv" pip install --python "$bin/python" -q --compile-bytecode)
    # shellcheck disable=SC2086  # the options are shell-quoted words
    "${uv[@]}" $options -r "$venv/requirements.txt" &&
        "${uv[@]}" $options --no-deps -r "$venv/requirements-nodeps.txt" &&
        "${uv[@]}" --no-deps --no-build-isolation -e ".[book,ray]"
}

with_pip() {
    "${pip[@]}" -r "$venv/requirements.txt"
    "${pip[@]}" --no-deps -r "$venv/requirements-nodeps.txt"
    "${pip[@]}" --no-deps --no-build-isolation -e ".[book,ray]"
}

if ! with_uv; then
    echo "uv could not install the environment (above); installing it with pip instead (a few minutes)" >&2
    with_pip
fi
