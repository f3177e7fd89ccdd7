#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `scripts/test-postgres.sh run -- <command…>` creates a cluster
# in a temporary directory, starts it on a free loopback port, runs the command with TEST_DATABASE_URL set to
# it, then stops the cluster and removes the directory whatever the command did, and exits with the command's
# status. Nothing outside the temporary directory is touched, so it never meets a PostgreSQL the machine runs.
#
# PostgreSQL refuses to run as root, and CI runs as root: there the cluster belongs to an unprivileged user
# (Debian's `postgres` when the package made it, else `nobody`).
set -euo pipefail

if [ "${1:-}" != run ] || [ "${2:-}" != -- ] || [ $# -lt 3 ]; then
  echo "usage: $0 run -- <command…>" >&2
  exit 2
fi
shift 2

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "$0: PostgreSQL's server programs are not installed (make postgresql installs them)" >&2
  exit 1
fi

as_owner=()
if [ "$(id -u)" = 0 ]; then
  owner=$(id -u postgres >/dev/null 2>&1 && echo postgres || echo nobody)
  as_owner=(runuser -u "$owner" --)
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/promo-pg.XXXXXX")
[ ${#as_owner[@]} -eq 0 ] || chown "$owner" "$dir"
port=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")

stop() {
  "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT

# A C locale and UTF-8, trust on loopback only, and no durability: the data lives as long as this run.
"${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
  cat "$dir/initdb.log" >&2
  exit 1
}
"${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
  start >/dev/null || {
  cat "$dir/server.log" >&2
  exit 1
}

export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
echo "test PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $dir, removed at the end)"
status=0
"$@" || status=$?
exit $status
