# Shared by the scripts in this folder: finds the toolchain and installs missing system packages.
# Sourced, not run.

set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Swift: use the one on PATH, else the toolchain at /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "sybil: no Swift toolchain found. Install Swift 6 (https://www.swift.org/install/) and try again." >&2
    exit 69
fi

# The Debian packages the package's system-library targets build against, what the Secret
# Service test runs (a session bus and GNOME Keyring), and objdump for check-async-locks.
debian_packages=(libsqlite3-dev libpng-dev libjpeg62-turbo-dev libheif-dev libssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libsecret-1-dev pkg-config
    gnome-keyring dbus-daemon dbus-bin binutils)

install_system_packages() {
    local missing=()
    local package
    for package in "${debian_packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "sybil: missing system packages (${missing[*]}) and no apt-get to install them; install them by hand." >&2
        exit 69
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "sybil: installing missing system packages with apt-get: ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Python packages the test peers use (an independent WebSocket client, the openai SDK,
# the llm command-line tool against the OpenAI-compatible routes, pexpect and pyte as the
# terminal for the terminal app, fakellm and mockllm: OpenAI-compatible servers this
# project did not write, for sybil to talk to, and LiteLLM's proxy, the gateway many people put
# in front of their models). Without pip or a network the tests that need them skip and say why.
python_packages=(websockets openai llm pexpect pyte fakellm mockllm 'litellm[proxy]')

# The module whose import shows a package is there, where it is not the package's own name:
# the proxy extra's package for LiteLLM (importing litellm itself takes seconds, and without
# a network it retries fetching a price list).
declare -A python_module_of=(['litellm[proxy]']=litellm_proxy_extras)

install_python_packages() {
    command -v python3 >/dev/null 2>&1 || return 0
    local package
    for package in "${python_packages[@]}"; do
        if ! python3 -c "import ${python_module_of[$package]:-$package}" >/dev/null 2>&1; then
            echo "sybil: installing the Python package $package for the test peers (pip)" >&2
            python3 -m pip install --quiet "$package" >/dev/null 2>&1 \
                || echo "sybil: could not install $package; the tests that need it will be skipped" >&2
        fi
    done
}
