package budget

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestMemTotal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24684084 kB\nMemFree:        21173624 kB\n", 24684084 << 10},
		{"MemFree: 1 kB\nMemTotal: 2 kB\n", 2048},
		{"MemTotal: 2 MB\n", 0},
		{"MemTotal: x kB\n", 0},
		{"", 0},
	} {
		if got := memTotal([]byte(tc.in)); got != tc.want {
			t.Errorf("memTotal(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if m := Memory(); m < 1<<20 {
		t.Errorf("Memory() = %d bytes, less than a MiB", m)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Bytes(512), "512 bytes"},
		{Bytes(1536), "1.5 KiB"},
		{Bytes(1023.9 * 1024 * 1024), "1 GiB"},
		{Bytes(3 << 40), "3 TiB"},
		{Bytes(1e30), "8.67e+11 EiB"},
		{Duration(45), "45 s"},
		{Duration(-1), "0 s"},
		{Duration(90), "1.5 min"},
		{Duration(3 * 3600), "3 hours"},
		{Duration(40 * 86400), "40 days"},
		{Duration(3e12), "9.5e+04 years"},
		{DecimalBytes(53.5e6), "54 MB"},
		{DecimalBytes(4.76e9), "4.8 GB"},
		{DecimalBytes(1.9e14), "190 TB"},
		{Significant(0.123), "0.12"},
		{Significant(7777), "7800"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestFits(t *testing.T) {
	for _, tc := range []struct {
		c    Cost
		want string // empty: fits
		kind error
	}{
		{Cost{Bytes: 1 << 30, Seconds: 60}, "", nil},
		{Cost{Bytes: 8 << 30, Seconds: MaxSeconds}, "", nil},
		{Cost{Bytes: 9 << 30, Seconds: 60}, "would take about 9 GiB of memory, more than the 8 GiB of this machine", ErrMemory},
		{Cost{Bytes: 1 << 30, Seconds: 40 * 86400}, "would take about 40 days on 2 cores, more than the week a run may take", ErrTime},
		{Cost{Bytes: math.Inf(1), Seconds: 1}, "would take about +Inf EiB", ErrMemory},
		{Cost{Bytes: 1, Seconds: math.NaN()}, "would take about NaN s", ErrTime},
	} {
		err := tc.c.Fits(8<<30, 2)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.kind)) {
			t.Errorf("%v fits 8 GiB: %v, want %q wrapping %v", tc.c, err, tc.want, tc.kind)
		}
	}
}
