// Package serve serves the model files of a directory over the Open
// Inference Protocol's REST API (KServe V2), which Triton, KServe,
// Seldon and ONNX Runtime's server speak: the server of machines serve.
//
// # Endpoints
//
//	GET  /v2                                          server metadata
//	GET  /v2/health/live, /v2/health/ready            health
//	GET  /v2/models/NAME[/versions/VERSION]           model metadata
//	GET  /v2/models/NAME[/versions/VERSION]/ready     model health
//	POST /v2/models/NAME[/versions/VERSION]/infer     inference
//	GET  /metrics                                     Prometheus metrics
//
// Requests and responses are the protocol's JSON; a tensor's data may be
// flat or nested. Errors are {"error": "..."} with a status:
//
//   - 4xx for a request at fault: 400 malformed, 401 without the token,
//     404 no such model or version, 405 wrong method, 408 body too slow,
//     413 body too large or a computation the memory budget cannot hold,
//     415 a compressed body (Content-Encoding), 429 too many requests
//     in flight, 499 a client that closed the connection, or only its
//     sending side, before the answer;
//   - 5xx for the server's own: 500 a model that failed, 503 a model not
//     loaded, a full memory budget or a model that did not answer in
//     time; 505 for the preface of HTTP/2 without TLS.
//
// New loads the models before it returns; a listener may take
// connections meanwhile through Starting, which answers the live
// endpoint and 503 to the others until the server is given to it.
//
// A ready endpoint answers 200 for true and 400 for false, as the
// protocol has it, with a JSON body that says why. A response's "parameters" hold "warnings" from the
// model about the request's data, one per line.
//
// # Models
//
// Each file NAME.json of the directory, hidden files aside, is the model
// NAME, NAME made of letters, digits, '.', '_' and '-'. A Kind loads the
// files of one "format" (and "kind") into a Model: the package has
// ModelKinds, the composed models of package model, and FiniteKinds; the
// command adds the kernel machines of machines fit.
// Another kind of model is one more Model and Kind. A model's version is
// the first 12 hexadecimal digits of the SHA-256 of its file.
//
// The directory is read every Config.Poll, and at once when Rescan asks
// (machines serve does on SIGHUP): a file added is loaded, a file
// replaced (by renaming a new file onto it, as the module's writers do)
// is loaded and served in place of the old version, and a file removed
// stops being served. Requests in flight finish on the version they
// started with: a request holds its version from its arrival to its
// answer, and the old version's batches run until its queue is empty. A
// file that fails to load leaves the previous version serving; the log
// and the model's ready endpoint say why. A file that cannot be read
// (its permissions, too many open files) is tried again at each scan,
// since a chmod leaves the file as it was for the scan's comparison.
//
// # Batches
//
// The requests to one model are computed in batches: each version has a
// queue and Config.Workers goroutines that take from it. A worker takes
// the first request waiting and adds the others of the same row shape,
// up to Config.BatchSize rows, waiting at most Config.BatchDelay for
// them, and not at all when no other request to the model is in flight;
// while the workers are busy, requests queue and join the next batch. A request's inputs are
// checked and encoded (Model.Prepare) in its own goroutine, so a bad row
// fails its request only; the batch stacks the encoded rows and the
// model computes them as one (Model.Infer). Buffers are pooled.
//
// # Limits
//
// A request body holds at most Config.MaxBody bytes and must arrive
// within Config.Timeout, as must the answer. At most Config.MaxInFlight
// inference requests are computed at once; a body on its way holds no
// place among them, so that slow clients cannot starve the requests
// that have arrived. At most Config.MaxMemory bytes are held by the
// requests: a body counts six times its bytes from the start (or as it
// arrives, without a Content-Length), and a request the memory of its
// computation, which the model estimates from its shapes before the
// request is prepared (see Sizer), at most the budget less six times
// MaxBody. A request waits its turn for its memory in a queue, where
// the clients (by remote address) take turns, one request a round, and
// a client's requests come in their order, at most Config.QueueWait
// (half of Config.Timeout unless set), then gets 503; the
// bodies of the requests not computing yet hold at most half the
// budget, so that some is left to compute them (admit.go says when a
// request may pass the first in the queue). Beyond MaxInFlight
// requests get 429 at once, and a computation the budget could never
// hold 413, with the most samples of its shape a request may hold. An
// answer is written at Config.MinWriteRate at least (32 KiB/s unless
// set), and within another Config.Timeout: a client that reads slower
// is cut, and the memory of its request given back. JSON nests at most Config.MaxDepth
// levels; a tensor's data are counted, and checked against its shape
// (nested data level by level) and the model's, before anything is
// stored. Model names are looked up among the files read, never used
// as paths, and only regular files are read, without blocking, of at
// most a twentieth of the machine's memory and 1 GiB; a link to nowhere
// or round a loop is a model file that did not load. A request with a
// chunked body has its connection closed after the answer, as RFC 9112
// has it for a body framed two ways.
//
// A row whose outputs are not all finite numbers is answered with its
// numbers null and its texts empty, as machines predict leaves it, and
// the response's parameters say which ("warnings", and "blank_rows",
// counted from 0). The server's ready endpoint, which takes no token,
// names the models not ready only to a request that has it. Listener
// makes net/http's own refusals of malformed HTTP JSON as well, and
// ShedIdle keeps idle connections from taking every file the process
// may open.
//
// # Operations
//
// /metrics gives, in Prometheus' text format, the inference requests by
// model and status code, the failures by model and reason, the
// latency and the batch sizes by model as histograms, the loads of model
// files, the requests in flight, the memory budget held and the
// requests waiting for it, and the models served, with the Go
// runtime's and the process's metrics. The log (log/slog) has a line per
// model loaded, replaced, removed or failed at level Info (Error for a
// failure) and a line per request at level Debug.
package serve
