#!/bin/sh
# flood.sh BINARY CONNS [SOURCE]: serve models/ with BINARY, flood it with wrk (big.json, CONNS connections, 15 s)
# while probe.py sends big.json and one.json one at a time, from the address SOURCE if given (another
# client than wrk's 127.0.0.1, such as 127.0.0.2); prints wrk's and the probes' counts.
bin=$1 conns=$2 source=$3 port=18090
$bin serve -models models -addr 127.0.0.1:$port > flood.out 2> flood.err &
pid=$!
sleep 1.5
python3 $(dirname $0)/probe.py $port 15 big.json $source > probe-big.txt &
python3 $(dirname $0)/probe.py $port 15 one.json $source > probe-one.txt &
wrk -t2 -c$conns -d15s --timeout 30s -s $(dirname $0)/big.lua http://127.0.0.1:$port/v2/models/reg/infer | grep -E "requests in|Non-2xx|Socket|Latency"
wait %2 %3 2>/dev/null; sleep 1
cat probe-big.txt probe-one.txt
ps -o rss= -p $pid | awk '{print "server RSS", $1/1024, "MiB"}'
kill $pid; wait $pid
