#!/bin/sh
# live.sh BINARY DIR: serve DIR; when the live and ready endpoints first answer 200, and when "listening" is printed
bin=$1 dir=$2 port=18098
start=$(date +%s.%N)
$bin serve -models $dir -addr 127.0.0.1:$port > $dir.out 2> $dir.err &
pid=$!
live="" ready="" line=""
for i in $(seq 1 3000); do
  now=$(echo "$(date +%s.%N) - $start" | bc)
  [ -z "$live" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' localhost:$port/v2/health/live)" = 200 ] && live=$now && echo "live 200 after $now s"
  [ -z "$line" ] && grep -q listening $dir.out && line=$now && echo "listening printed after $now s"
  [ -z "$ready" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' localhost:$port/v2/health/ready)" = 200 ] && ready=$now && echo "ready 200 after $now s"
  [ -n "$ready" ] && [ -n "$line" ] && break
  sleep 0.05
done
kill $pid; wait
