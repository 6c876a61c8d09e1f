# Shared set-up for scripts/demo and scripts/test. Source it; every step is idempotent, so a
# second run on a prepared machine costs seconds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PARFORGE="$VENV/bin/parforge"
export PARFORGE_DATA_DIR="${PARFORGE_DATA_DIR:-$ROOT/.parforge}"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        log "need root for: $*"; return 1; fi
}

apt_install() {
    # Install the named Debian packages that are missing.
    local missing=()
    for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
    [ ${#missing[@]} = 0 ] && return 0
    log "installing ${missing[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_venv() {
    local stamp="$VENV/.parforge-installed"
    if [ ! -x "$VENV/bin/python" ]; then
        log "creating $VENV"
        python3 -m venv "$VENV"
    fi
    if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
        log "installing ParForge and its dependencies into .venv"
        "$VENV/bin/pip" install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
        "$VENV/bin/pip" install -q -e "$ROOT[dev]" 2>&1 | grep -v '^WARNING: Location' || true
        "$VENV/bin/python" -c "import parforge, sandbox" && touch "$stamp"
    fi
}

ensure_docker() {
    # The Docker engine: installed from Debian when absent, started when nothing answers.
    if ! command -v dockerd >/dev/null 2>&1; then
        apt_install docker.io
    fi
    if docker info >/dev/null 2>&1; then return 0; fi
    log "starting dockerd"
    mkdir -p "$PARFORGE_DATA_DIR"
    as_root sh -c "nohup dockerd >'$PARFORGE_DATA_DIR/dockerd.log' 2>&1 &"
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && return 0; sleep 1; done
    log "dockerd did not come up; see $PARFORGE_DATA_DIR/dockerd.log"; tail -20 "$PARFORGE_DATA_DIR/dockerd.log" >&2
    return 1
}

ensure_host_toolchain() {
    # Compilers and checkers on the host, for the local backend and the host-side benchmarks.
    apt_install g++ clang libomp-dev libclang-rt-14-dev llvm openmpi-bin libopenmpi-dev \
        bubblewrap debootstrap
}

ensure_model_server() {
    # The embedded vLLM server (CPU, SmolLM2-135M-Instruct). Its own environment and the
    # converted model are made on first use (minutes, once, under the data dir); then the server
    # starts in the background and warms up while the other steps run. Tests wait for health.
    # tcmalloc is preloaded into the server when present, as vLLM's CPU guide advises.
    apt_install libtcmalloc-minimal4
    "$PARFORGE" model serve --no-wait
}
