#!/usr/bin/env bash
# `scripts/install-system-deps.sh --service` ends here: installs this checkout, built, as the
# systemd service of contrib/kura.service (decision 0120). As root:
# - a `kura` system user and group (nologin, home /var/lib/kura);
# - /opt/kura: this checkout's code, built by `npm ci` if it is not, with the Node it runs on
#   (node_modules); root's, readable by all. Put in place whole (staged, then renamed);
# - /var/lib/kura: kura's, 0750: the data directory (data/: the archive and the embedded
#   PostgreSQL, which runs as kura in it) and yt-dlp, which the workers update;
# - /etc/kura/kura.env: the settings, 0640 root:kura, made once (.env.example's lines, commented
#   out, under the service's own); later runs never change it;
# - /etc/systemd/system/kura.service and /usr/local/bin/kura (contrib/), then, where systemd
#   runs, the service enabled and started, or restarted when it ran (an upgrade).
# Running it again from a newer checkout upgrades. KURA_SERVICE_ROOT puts every path under a
# folder instead of / (the tests install there; the kura user is the system's either way).
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
root="${KURA_SERVICE_ROOT:-}"
app="$root/opt/kura"
state="$root/var/lib/kura"
etc="$root/etc/kura"
if [ "$(id -u)" -ne 0 ]; then
  echo "kura: --service needs root: it makes the kura user, $app and $etc" >&2
  exit 1
fi

# Kura run as root (`npm start`) keeps its PostgreSQL clusters in /var/lib/kura/postgres, owned
# by the postgres user (decision 0027): the service takes /var/lib/kura over, so they would break
if [ -d "$state/postgres" ]; then
  echo "kura: $state/postgres holds the database of a Kura run as root; back it up first (in its clone: npx kura backup FILE), stop it, move $state/postgres away, run this again, then restore the backup into the service (kura restore FILE)" >&2
  exit 1
fi

if [ ! -f "$checkout/dist/src/cli.js" ] || [ ! -x "$checkout/node_modules/.bin/node" ]; then
  (cd "$checkout" && npm ci)
fi

if ! getent passwd kura >/dev/null; then
  getent group kura >/dev/null || groupadd --system kura
  useradd --system --gid kura --home-dir /var/lib/kura --no-create-home --shell /usr/sbin/nologin \
    --comment 'Kura livestream archive' kura
fi
install -d -m 0750 -o kura -g kura "$state"
install -d -m 0750 -o kura -g kura "$state/data"
# the yt-dlp this script installed as root: the service's workers update it in place
if [ -d "$state/yt-dlp" ]; then chown -R kura:kura "$state/yt-dlp"; fi

# the code, whole or not at all: what ran before stays until the new one is in place
mkdir -p "$(dirname "$app")"
rm -rf "$app.new" "$app.old"
mkdir "$app.new"
tar -C "$checkout" --exclude=./.git --exclude=./data --exclude=./.env --exclude=./test-artifacts -cf - . | tar -C "$app.new" -xf -
chown -R root:root "$app.new"
chmod -R u+rwX,go+rX,go-w "$app.new"
chmod 0755 "$app.new"
if [ -d "$app" ]; then mv "$app" "$app.old"; fi
mv "$app.new" "$app"
rm -rf "$app.old"

# paths as the files in contrib/ name them, under KURA_SERVICE_ROOT when it is set
placed() { sed -e "s#/opt/kura#$app#g" -e "s#/var/lib/kura#$state#g" -e "s#/etc/kura#$etc#g" "$1"; }

install -d -m 0750 -o root -g kura "$etc"
if [ ! -e "$etc/kura.env" ]; then
  {
    echo "# Kura's settings, read by the service and by /usr/local/bin/kura (KURA_ENV_FILE)."
    echo "# The service's own first; every other setting below, commented out, as .env.example documents it."
    echo "KURA_DATA_DIR=$state/data"
    echo "KURA_SYSTEM_DIR=$state"
    echo
    sed -e 's/^\([A-Z][A-Z0-9_]*=\)/# \1/' "$checkout/.env.example"
  } >"$etc/kura.env.new"
  chown root:kura "$etc/kura.env.new"
  chmod 0640 "$etc/kura.env.new"
  mv "$etc/kura.env.new" "$etc/kura.env"
fi

install -d "$root/etc/systemd/system" "$root/usr/local/bin"
placed "$checkout/contrib/kura.service" >"$root/etc/systemd/system/kura.service"
chmod 0644 "$root/etc/systemd/system/kura.service"
placed "$checkout/contrib/kura" >"$root/usr/local/bin/kura"
chmod 0755 "$root/usr/local/bin/kura"

if [ -z "$root" ] && [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  if systemctl is-active --quiet kura; then
    systemctl restart kura
    echo "kura: upgraded and restarted (journalctl -u kura)"
  else
    systemctl enable --now kura
    echo "kura: installed and started; it listens as $etc/kura.env says (journalctl -u kura)"
  fi
else
  echo "kura: installed in $app; systemd does not run here, so start it with: systemctl enable --now kura (where it does), or: $root/usr/local/bin/kura serve"
fi
