-- The load of "machines bench -suite serve", for wrk (Debian's wrk 4.1):
--
--   wrk -t2 -cN -dD -s serve.lua URL -- BODY [EXPECT]
--
-- posts the inference request in the file BODY from every connection, a
-- new one as soon as the last is answered. With EXPECT, a file of lines
-- "VERSION PREDICTION", it also reads each response and counts those
-- whose prediction is not the one of the model version they name. At the
-- end it prints one JSON line with the counts and latencies.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local f = assert(io.open(args[1], "rb"))
  wrk.method = "POST"
  wrk.body = f:read("*a")
  f:close()
  wrk.headers["Content-Type"] = "application/json"
  checked, mismatched = 0, 0
  if args[2] == nil then
    response = nil -- wrk then skips reading the responses
    return
  end
  expect = {}
  for line in io.lines(args[2]) do
    local version, prediction = line:match("^(%S+) (%S+)$")
    expect[version] = prediction
  end
end

function response(status, headers, body)
  if status ~= 200 then
    return -- wrk counts it among its status errors
  end
  checked = checked + 1
  local version = body:match('"model_version":"(%x+)"')
  local prediction = body:match('"data":%[([^%]]*)%]')
  if version == nil or expect[version] ~= prediction then
    mismatched = mismatched + 1
    if mismatched <= 3 then
      io.stderr:write("serve.lua: a response not of the version it names: " .. body .. "\n")
    end
  end
end

function done(summary, latency, requests)
  local c, m = 0, 0
  for _, thread in ipairs(threads) do
    c = c + thread:get("checked")
    m = m + thread:get("mismatched")
  end
  local e = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,' ..
    '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"status_errors":%d,"timeouts":%d,"checked":%d,"mismatched":%d}\n',
    summary.requests, summary.duration, math.floor(latency:percentile(50)), math.floor(latency:percentile(99)),
    e.connect, e.read, e.write, e.status, e.timeout, c, m))
end
