#!/bin/sh
# bigmodel.sh BINARY DIR: serve DIR, time until listening, peak RSS, and what the models' ready endpoints say
bin=$1 dir=$2 port=18097
start=$(date +%s.%N)
/usr/bin/time -f "maxrss %M KB" -o $dir.time $bin serve -models $dir -addr 127.0.0.1:$port > $dir.out 2> $dir.err &
for i in $(seq 1 600); do grep -q listening $dir.out 2>/dev/null && break; sleep 0.2; done
echo "listening after $(echo "$(date +%s.%N) - $start" | bc) s"
curl -s -o /dev/null -w "reg infer %{http_code}\n" --data-binary @one.json localhost:$port/v2/models/reg/infer
for m in $(ls $dir | sed 's/.json$//'); do curl -s localhost:$port/v2/models/$m/ready | cut -c1-250; echo; done
kill $(pgrep -f "serve -models $dir -addr 127.0.0.1:$port" | grep -v $$ | tail -1); wait
cat $dir.time; cut -c1-250 $dir.err
