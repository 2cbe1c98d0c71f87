#!/bin/sh
# slow.sh BINARY: serve models/ with BINARY, 12 slow readers of big.json's answer plus a probe (slowread.py) for 20 s
bin=$1 port=18091
$bin serve -models models -addr 127.0.0.1:$port > slow.out 2> slow.err &
pid=$!
sleep 1.5
python3 $(dirname $0)/slowread.py $port 12 20
ps -o rss= -p $pid | awk '{print "server RSS", $1/1024, "MiB"}'
kill $pid; wait $pid
