#!/bin/sh
# Installs the benchmark's peers, Varnish and nginx, and the load generator wrk with apt-get.
# Idempotent: packages already present are left as they are. Nothing is left running: the
# benchmark starts its own varnishd and nginx on free loopback ports, so the packages'
# services are kept from starting (policy-rc.d) and stopped should they have started anyway.
set -eu

PACKAGES="varnish nginx wrk"
POLICY=/usr/sbin/policy-rc.d

if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: needs root (apt-get); run it with sudo" >&2
  exit 1
fi

missing=""
for package in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $package"
done

if [ -n "$missing" ]; then
  # policy-rc.d exit status 101 = "action forbidden": no service starts during the install.
  own_policy=""
  if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$POLICY"
    chmod 755 "$POLICY"
    own_policy=1
  fi
  trap 'if [ -n "$own_policy" ]; then rm -f "$POLICY"; fi' EXIT
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing
fi

# Should a service have started all the same (no policy-rc.d honoured, or installed earlier),
# stop it, so that nothing of the system's listens on :80 or :6081.
for service in nginx varnish varnishncsa; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
    systemctl stop "$service" || true
  elif command -v service >/dev/null 2>&1; then
    service "$service" stop >/dev/null 2>&1 || true
  fi
done
for pidfile in /run/nginx.pid /run/varnishd.pid; do
  if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    kill "$(cat "$pidfile")" || true
  fi
done

echo "varnish: $(varnishd -V 2>&1 | head -n 1)"
echo "nginx:   $(nginx -v 2>&1)"
echo "slice:   $(nginx -V 2>&1 | grep -q -- '--with-http_slice_module' && echo built in || echo missing)"
echo "wrk:     $(wrk -v 2>&1 | head -n 1)"
