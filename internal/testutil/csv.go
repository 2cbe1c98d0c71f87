package testutil

import (
	"encoding/csv"
	"os"
	"testing"
)

// ReadCSV reads a whole CSV file, header included, or fails the test.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
