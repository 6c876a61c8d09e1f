# Shared set-up for scripts/demo and scripts/test. Source it; every step is idempotent, so a
# second run on a prepared machine costs seconds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PARFORGE="$VENV/bin/parforge"
# The CLI's own default data dir: what the demo stores, a plain `parforge tasks list` shows, and
# one embedded model server serves both.
export PARFORGE_DATA_DIR="${PARFORGE_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/parforge}"

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
        mkdir -p "$PARFORGE_DATA_DIR"
        if ! { "$VENV/bin/pip" install -q --upgrade pip &&
               "$VENV/bin/pip" install -q -e "$ROOT[dev]" &&
               # TRL's data utilities for the export tests, without its trainer stack (torch).
               "$VENV/bin/pip" install -q --no-deps "trl>=1.0"; } >"$PARFORGE_DATA_DIR/pip.log" 2>&1; then
            tail -30 "$PARFORGE_DATA_DIR/pip.log" >&2; return 1
        fi
        "$VENV/bin/python" -c "import parforge, sandbox" && touch "$stamp"
    fi
}

ensure_browser() {
    # Headless Chromium and its driver, for the web UI's browser tests.
    apt_install chromium chromium-driver fonts-dejavu-core
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

ensure_compose() {
    # Debian's docker-compose, for the service's compose project (parforge deploy).
    command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose
}

ensure_host_toolchain() {
    # Compilers and checkers on the host, for the local backend and the host-side benchmarks.
    apt_install g++ clang libomp-dev libclang-rt-14-dev llvm openmpi-bin libopenmpi-dev \
        bubblewrap debootstrap
}

ensure_postgres() {
    # A throw-away PostgreSQL cluster for the store's tests: Debian's server, a cluster under the
    # data dir owned by `postgres`, on a port derived from this checkout so that two checkouts on
    # one machine do not collide. Exports PARFORGE_TEST_POSTGRES_URL.
    local bin
    bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        apt_install postgresql
        bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
    fi
    local port="${PARFORGE_PG_PORT:-$((40000 + $(printf '%s' "$ROOT" | cksum | cut -d' ' -f1) % 20000))}"
    local dir="$PARFORGE_DATA_DIR/postgres"
    local pg=(runuser -u postgres --)
    [ "$(id -u)" = 0 ] || pg=(sudo -u postgres)
    mkdir -p "$dir"
    chown postgres: "$dir" 2>/dev/null || as_root chown postgres: "$dir"
    if ! "${pg[@]}" test -w "$dir"; then
        # The data dir sits below a folder `postgres` cannot enter (a home directory).
        dir="/var/tmp/parforge-postgres-$port"
        mkdir -p "$dir" && chown postgres: "$dir" 2>/dev/null || as_root chown postgres: "$dir"
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        log "initialising a PostgreSQL cluster in $dir"
        "${pg[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log"
    fi
    # A server already answering on the port is used as it is: this cluster, or one an earlier
    # checkout or data dir started there (the port comes from the checkout's path).
    if ! "${pg[@]}" "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 &&
        ! "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
        log "starting PostgreSQL on 127.0.0.1:$port"
        "${pg[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off" start >/dev/null
    fi
    "${pg[@]}" "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname='parforge'" | grep -q 1 ||
        "${pg[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres parforge
    export PARFORGE_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$port/parforge"
}

ensure_sandbox_image() {
    # The sandbox image for the current Dockerfile; seconds when its tag exists, a few minutes
    # otherwise (the base is bootstrapped offline with debootstrap when no registry answers).
    ensure_docker
    command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
    log "sandbox image"
    "$PARFORGE" sandbox build
}

ensure_model_server() {
    # The embedded vLLM server (CPU, SmolLM2-135M-Instruct). Its own environment and the
    # converted model are made on first use (minutes, once, under the data dir); then the server
    # starts in the background and warms up while the other steps run. Tests wait for health.
    # tcmalloc is preloaded into the server when present, as vLLM's CPU guide advises.
    apt_install libtcmalloc-minimal4
    "$PARFORGE" model serve --no-wait
}
