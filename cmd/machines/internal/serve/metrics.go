package serve

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics, in a registry of its
// own with the Go runtime's and the process's.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec   // by model and status code
	errors   *prometheus.CounterVec   // by model and reason
	latency  *prometheus.HistogramVec // by model
	batch    *prometheus.HistogramVec // by model
	loads    *prometheus.CounterVec   // by model and result
	inFlight prometheus.Gauge
	memory   prometheus.Gauge // bytes of the memory budget held
	waiting  prometheus.Gauge // requests in the queue for it
	models   prometheus.Gauge
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "machines_serve_requests_total",
			Help: "Inference requests by model and HTTP status code; model is empty for requests to no known model.",
		}, []string{"model", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "machines_serve_errors_total",
			Help: "Inference requests that failed, by model and reason: bad_request, too_large, timeout, overloaded, unavailable, unauthorized, canceled, slow_reader, internal.",
		}, []string{"model", "reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "machines_serve_request_duration_seconds",
			Help:    "Time from the arrival of an inference request to its response, by model.",
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 16), // 50 µs to 1.6 s
		}, []string{"model"}),
		batch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "machines_serve_batch_rows",
			Help:    "Rows of the batches computed, by model.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 12), // 1 to 2048
		}, []string{"model"}),
		loads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "machines_serve_model_loads_total",
			Help: "Loads of model files, by model and result: loaded or failed.",
		}, []string{"model", "result"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "machines_serve_in_flight_requests",
			Help: "Inference requests admitted and not yet answered.",
		}),
		memory: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "machines_serve_memory_bytes",
			Help: "Bytes of the memory budget that the requests hold, by their bodies and computations.",
		}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "machines_serve_memory_waiting_requests",
			Help: "Requests waiting their turn for the memory budget.",
		}),
		models: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "machines_serve_models",
			Help: "Models being served.",
		}),
	}
	m.registry.MustRegister(m.requests, m.errors, m.latency, m.batch, m.loads, m.inFlight, m.memory, m.waiting, m.models,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// modelMetrics are the metrics of one model, resolved once per version
// so that a request looks up no labels.
type modelMetrics struct {
	name      string
	m         *metrics
	ok        prometheus.Counter
	latency   prometheus.Observer
	batchRows prometheus.Observer
}

func (m *metrics) model(name string) *modelMetrics {
	return &modelMetrics{name: name, m: m,
		ok:        m.requests.WithLabelValues(name, "200"),
		latency:   m.latency.WithLabelValues(name),
		batchRows: m.batch.WithLabelValues(name),
	}
}

// request counts an inference request of the model (nil for none known)
// with its status, and the reason of a failure.
func (m *metrics) request(mm *modelMetrics, status int, reason string) {
	if mm != nil && status == 200 {
		mm.ok.Inc()
		return
	}
	name := ""
	if mm != nil {
		name = mm.name
	}
	m.requests.WithLabelValues(name, strconv.Itoa(status)).Inc()
	if reason != "" {
		m.errors.WithLabelValues(name, reason).Inc()
	}
}
