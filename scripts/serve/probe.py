#!/usr/bin/env python3
"""probe.py PORT SECONDS FILE [SOURCE]: send FILE, from the address SOURCE if given (such as 127.0.0.2), to the regression model one request at a time, 0.2 s apart, and count the statuses."""
import sys, time, collections, http.client
port, secs, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
source = (sys.argv[4], 0) if len(sys.argv) > 4 else None
body = open(path, 'rb').read()
start, statuses, times = time.time(), collections.Counter(), []
while time.time() - start < secs:
    t0 = time.time()
    try:
        c = http.client.HTTPConnection('127.0.0.1', port, timeout=30, source_address=source)
        c.request('POST', '/v2/models/reg/infer', body, {'Content-Type': 'application/json'})
        r = c.getresponse(); r.read(); status = r.status; c.close()
    except OSError as e:
        status = 'error ' + e.__class__.__name__
    statuses[status] += 1
    if status == 200: times.append(time.time() - t0)
    time.sleep(0.2)
times.sort()
print('probe %s: %s; 200s in %s s (median %s)' % (path.split('/')[-1], dict(statuses),
      '%.2f-%.2f' % (times[0], times[-1]) if times else '-', '%.2f' % times[len(times)//2] if times else '-'))
