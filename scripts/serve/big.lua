-- wrk: POST big.json (from the current directory) to the model reg, retrying at once whatever the answer
local f = io.open("big.json", "rb")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
