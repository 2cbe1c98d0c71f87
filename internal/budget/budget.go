package budget

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// DefaultMemory is the memory Memory assumes where the system does not
// tell: 16 GiB.
const DefaultMemory = 16 << 30

// MaxSeconds is the longest run that Cost.Fits lets start: a week. The
// estimates are good to a factor of a few, and a run estimated at more
// than a week is more likely a mistyped setting than a plan.
const MaxSeconds = 7 * 24 * 3600

// Memory returns the bytes of memory this process may use: the machine's
// physical memory, or the limit of its control group if that is lower,
// on Linux; DefaultMemory elsewhere or where they cannot be read.
func Memory() int64 {
	total := int64(0)
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		total = memTotal(data)
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if data, err := os.ReadFile(path); err == nil {
			if limit, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && limit > 0 && (total == 0 || limit < total) {
				total = limit
			}
		}
	}
	if total <= 0 {
		return DefaultMemory
	}
	return total
}

// memTotal returns the bytes of the MemTotal line of /proc/meminfo, or 0.
func memTotal(meminfo []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// ErrMemory and ErrTime are wrapped by the errors of Cost.Fits, so that a
// caller can say what to change.
var (
	ErrMemory = errors.New("not enough memory")
	ErrTime   = errors.New("too long")
)

// Cost is what a run would take: Bytes of memory at its peak and Seconds
// of wall time.
type Cost struct {
	Bytes, Seconds float64
}

// String says what c takes, as "about 350 MiB and 4 min".
func (c Cost) String() string {
	return "about " + Bytes(c.Bytes) + " and " + Duration(c.Seconds)
}

// Fits returns nil if c fits in memory bytes and in MaxSeconds, and
// otherwise an error that says what c would take against what there is,
// wrapping ErrMemory or ErrTime.
func (c Cost) Fits(memory int64, cores int) error {
	switch {
	case !(c.Bytes <= float64(memory)):
		return &shortfall{ErrMemory, fmt.Sprintf("would take about %s of memory, more than the %s of this machine", Bytes(c.Bytes), Bytes(float64(memory)))}
	case !(c.Seconds <= MaxSeconds):
		return &shortfall{ErrTime, fmt.Sprintf("would take about %s on %d cores, more than the week a run may take", Duration(c.Seconds), cores)}
	}
	return nil
}

// shortfall is an error of Fits: a message and the sentinel it wraps.
type shortfall struct {
	kind error
	msg  string
}

func (e *shortfall) Error() string { return e.msg }
func (e *shortfall) Unwrap() error { return e.kind }

// Bytes writes b bytes in the binary unit that suits it, to three
// significant digits: "512 bytes", "1.5 GiB".
func Bytes(b float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	for b >= 1000 && u < len(units)-1 {
		b /= 1024
		u++
	}
	return strconv.FormatFloat(b, 'g', 3, 64) + " " + units[u]
}

// Duration writes s seconds in the unit that suits it, to two significant
// digits: "45 s", "12 min", "3.5 hours", "40 days", "2e+05 years".
func Duration(s float64) string {
	for _, u := range []struct {
		name string
		secs float64
	}{{"years", 365 * 86400}, {"days", 86400}, {"hours", 3600}, {"min", 60}} {
		if s >= 2*u.secs || u.name == "min" && s >= 60 {
			return strconv.FormatFloat(s/u.secs, 'g', 2, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(math.Max(s, 0), 'g', 2, 64) + " s"
}

// Available returns the memory this process may still use: the
// kernel's estimate of available memory, or the room left under the
// cgroup's limit if that is less. ok is false if neither is known.
func Available() (avail int64, ok bool) {
	avail = math.MaxInt64
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if rest, found := strings.CutPrefix(sc.Text(), "MemAvailable:"); found {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					avail, ok = kb<<10, true
				}
			}
		}
	}
	limit, errLimit := readInt("/sys/fs/cgroup/memory.max")
	used, errUsed := readInt("/sys/fs/cgroup/memory.current")
	if errLimit == nil && errUsed == nil {
		avail, ok = min(avail, limit-used), true
	}
	return avail, ok
}

// readInt reads a file holding one whole number, such as a cgroup's
// limit; "max" is not a number.
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// DecimalBytes writes a number of bytes in MB, GB or TB, to two
// significant figures.
func DecimalBytes(b float64) string {
	switch {
	case b >= 1e12:
		return Significant(b/1e12) + " TB"
	case b >= 1e9:
		return Significant(b/1e9) + " GB"
	}
	return Significant(b/1e6) + " MB"
}

// Significant writes v, positive, rounded to two significant figures and
// without an exponent: 0.12, 3.4, 56, 7800.
func Significant(v float64) string {
	e := int(math.Floor(math.Log10(v))) - 1
	step := math.Pow(10, float64(e))
	return strconv.FormatFloat(math.Round(v/step)*step, 'f', max(0, -e), 64)
}
