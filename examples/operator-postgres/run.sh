#!/usr/bin/env bash
# Two `stint serve` instances on one PostgreSQL database, seeded with fixture.json: what runs behind a load balancer.
#
#   examples/operator-postgres/run.sh            # start both, print their addresses, run until Ctrl-C
#   examples/operator-postgres/run.sh --smoke    # start both, show one timer across them, stop
#
# Environment:
#   STINT_DATABASE_URL  the database both instances share (default postgres://postgres@127.0.0.1:5432/stint_demo);
#                       it must exist: createdb -h 127.0.0.1 -U postgres stint_demo
#   STINT_PORTS         the two ports (default "8801 8802"; 0 picks a free port)
#   STINT_BIN           the stint command (default: this repository's adapters/http/dist/bin.js; `npm run build`)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
database=${STINT_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/stint_demo}
read -r -a ports <<< "${STINT_PORTS:-8801 8802}"
bin=${STINT_BIN:-$root/adapters/http/dist/bin.js}
smoke=false
[[ ${1:-} == --smoke ]] && smoke=true

stint() { node "$bin" "$@"; }
# Reads one field of the JSON on stdin, e.g. `field timer.id`.
field() {
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () =>
    console.log(process.argv[1].split(".").reduce((o, k) => o?.[k], JSON.parse(s)) ?? ""))' "$1"
}

# 1. Migrations. Optional: every instance also applies pending migrations when it starts, under an advisory lock.
stint migrate --database "$database"

# 2. The fixture: one transaction, all or nothing. On a second run its ids already exist, so it is refused whole.
if ! seeded=$(stint seed --database "$database" "$here/fixture.json" 2>&1); then
  if [[ $seeded == *"already exist"* ]]; then echo "fixture already loaded"; else echo "$seeded" >&2; exit 1; fi
else
  echo "fixture loaded: $(field counts <<< "$seeded" | tr -d '\n ')"
fi

# 3. The instances. They share nothing but the database: any load balancer may send any request to either.
logs=$(mktemp -d)
pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  wait || true
  rm -rf "$logs"
}
trap stop EXIT
trap 'exit 130' INT TERM
urls=()
for i in "${!ports[@]}"; do
  # `node` itself, not the `stint` function: $! must be the server's pid, so that `stop` signals the server.
  node "$bin" serve --host 127.0.0.1 --port "${ports[$i]}" --database "$database" > "$logs/$i.log" 2> "$logs/$i.err" &
  pids+=($!)
done
for i in "${!ports[@]}"; do
  for _ in $(seq 300); do
    url=$(grep -o -m 1 'listening on http://[^ ]*' "$logs/$i.log" | cut -d ' ' -f 3 || true)
    [[ -n $url ]] && break
    kill -0 "${pids[$i]}" 2> /dev/null || { cat "$logs/$i.err" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n $url ]] || { echo "instance $i printed no ready line" >&2; exit 1; }
  urls+=("$url")
  echo "instance $i: $url (pid ${pids[$i]})"
done

owner=stint_demo-owner-key_not-for-production
if ! $smoke; then
  echo
  echo "Try a request on each instance:"
  echo "  curl -H 'Authorization: Bearer $owner' ${urls[0]}/api/v1/clients"
  echo "  curl -H 'Authorization: Bearer $owner' ${urls[1]}/api/v1/timer"
  echo "Readiness (for the load balancer's health check): ${urls[0]}/readyz"
  echo "Request logs: $logs/0.log and $logs/1.log. Ctrl-C stops both."
  wait
  exit 0
fi

# --smoke: a timer started on one instance is seen and stopped on the other; a retry replays on the first.
call() { # METHOD URL [IDEMPOTENCY-KEY [BODY]]
  local args=(-s -S -X "$1" -H "Authorization: Bearer $owner" -D "$logs/headers")
  [[ -n ${3:-} ]] && args+=(-H "Idempotency-Key: $3")
  [[ -n ${4:-} ]] && args+=(-H "Content-Type: application/json" -d "$4")
  curl "${args[@]}" "$2"
}
project=0190b5a0-1000-7000-8000-000000000031
started=$(call POST "${urls[0]}/api/v1/timers/start" "smoke-start-$$" "{\"projectId\":\"$project\"}")
timer=$(field timer.id <<< "$started")
[[ -n $timer ]] || { echo "start failed: $started" >&2; exit 1; }
echo "started on instance 0: $timer"
seen=$(call GET "${urls[1]}/api/v1/timer" | field timer.id)
[[ $seen == "$timer" ]] || { echo "instance 1 sees '$seen', not $timer" >&2; exit 1; }
echo "running on instance 1: $seen"
stopped=$(call POST "${urls[1]}/api/v1/timers/$timer/stop" "smoke-stop-$$")
[[ $(field stoppedTimerId <<< "$stopped") == "$timer" ]] || { echo "stop failed: $stopped" >&2; exit 1; }
echo "stopped on instance 1"
replay=$(call POST "${urls[0]}/api/v1/timers/$timer/stop" "smoke-stop-$$")
[[ $replay == "$stopped" ]] && grep -qi '^idempotent-replayed: true' "$logs/headers" ||
  { echo "retry on instance 0 was not a replay: $replay" >&2; exit 1; }
echo "retried on instance 0: replayed, same bytes"
echo "smoke check passed"
