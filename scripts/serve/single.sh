#!/bin/sh
# single.sh BINARY: one-row requests from 64 connections for 10 s (wrk), requests/s and latency
bin=$1 port=18099
$bin serve -models models -addr 127.0.0.1:$port > single.out 2> single.err &
pid=$!
sleep 1.5
wrk -t2 -c64 -d10s --latency -s $(dirname $0)/one.lua http://127.0.0.1:$port/v2/models/reg/infer | grep -E "Requests/sec|99%|Non-2xx"
kill $pid; wait $pid
