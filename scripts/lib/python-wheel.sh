# Sourced by scripts/test-python and scripts/bench-python: the one recipe
# for a virtual environment holding the kernelc wheel built from python/.
# The maturin version is pinned here for both.
MATURIN=maturin==1.16.0

# make_venv VENV PACKAGE...: VENV exists and holds maturin and PACKAGEs
# (pinned by the caller, from PyPI). Returns non-zero when either fails.
make_venv() {
    local venv=$1
    shift
    { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } &&
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$MATURIN" "$@"
}

# install_wheel VENV WHEELS PROFILE: builds the abi3 wheel of python/ with
# cargo PROFILE (dev or release) into the folder WHEELS (emptied first) and
# installs it into VENV over any earlier build.
install_wheel() {
    local venv=$1 wheels=$2 profile=$3
    rm -rf "$wheels"
    "$venv/bin/maturin" build --quiet -m python/Cargo.toml --profile "$profile" -o "$wheels" \
        -i "$venv/bin/python" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
        --no-deps "$wheels"/kernelc-*.whl
}
