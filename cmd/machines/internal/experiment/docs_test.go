package experiment

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// docsPage is the page whose checked table TestDocsNumbers regenerates.
const docsPage = "../../../../docs/results-paper.md"

// docsTolerance is the relative difference of a test MSE from the page's
// that TestDocsNumbers accepts: the page prints three significant
// digits, and a fit may end a few last bits apart on another processor.
const docsTolerance = 0.02

// checkedRow is a row of the page's checked table: the command that
// regenerates it, a model of its report, and the model's parameters and
// test MSE.
type checkedRow struct {
	command, model string
	params         int
	testMSE        float64
}

// checkedRows reads the table between the page's markers
// "<!-- checked: begin -->" and "<!-- checked: end -->": a header, a
// separator, then rows "| command | model | parameters | test MSE |".
func checkedRows(page string) ([]checkedRow, error) {
	_, rest, ok := strings.Cut(page, "<!-- checked: begin -->")
	table, _, ok2 := strings.Cut(rest, "<!-- checked: end -->")
	if !ok || !ok2 {
		return nil, fmt.Errorf("no checked table between the markers")
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) < 3 {
		return nil, fmt.Errorf("checked table of %d lines, want a header, a separator and rows", len(lines))
	}
	var rows []checkedRow
	for i, line := range lines[2:] {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 4 {
			return nil, fmt.Errorf("checked row %d: %d cells, want 4", i+1, len(cells))
		}
		for j := range cells {
			cells[j] = strings.Trim(strings.TrimSpace(cells[j]), "`")
		}
		params, err := strconv.Atoi(cells[2])
		if err != nil {
			return nil, fmt.Errorf("checked row %d: parameters: %w", i+1, err)
		}
		mse, err := strconv.ParseFloat(cells[3], 64)
		if err != nil {
			return nil, fmt.Errorf("checked row %d: test MSE: %w", i+1, err)
		}
		rows = append(rows, checkedRow{command: cells[0], model: cells[1], params: params, testMSE: mse})
	}
	return rows, nil
}

// parseCommand returns the experiment and configuration of a command
// "machines experiment NAME [-seed N] [-quick]", the flags the check
// runs.
func parseCommand(command, out string) (string, Config, error) {
	f := strings.Fields(command)
	if len(f) < 3 || f[0] != "machines" || f[1] != "experiment" {
		return "", Config{}, fmt.Errorf("%q is not a machines experiment command", command)
	}
	c := Config{Out: out, Seed: 1}
	for i := 3; i < len(f); i++ {
		switch {
		case f[i] == "-quick":
			c.Quick = true
		case f[i] == "-seed" && i+1 < len(f):
			seed, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return "", Config{}, fmt.Errorf("%q: -seed: %w", command, err)
			}
			c.Seed = seed
			i++
		default:
			return "", Config{}, fmt.Errorf("%q: the check runs only -seed and -quick, not %q", command, f[i])
		}
	}
	return f[2], c, nil
}

// TestDocsNumbers reruns the commands of the checked table of
// docs/results-paper.md and compares each model's parameters and test
// MSE with the page's.
func TestDocsNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("reruns the experiments of the checked table")
	}
	b, err := os.ReadFile(docsPage)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := checkedRows(string(b))
	if err != nil {
		t.Fatalf("%s: %v", docsPage, err)
	}
	reports := map[string]*Report{}
	for _, row := range rows {
		r, ok := reports[row.command]
		if !ok {
			name, c, err := parseCommand(row.command, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if r, err = Run(name, c); err != nil {
				t.Fatalf("%s: %v", row.command, err)
			}
			reports[row.command] = r
		}
		m := r.Model(row.model)
		switch {
		case m == nil:
			t.Errorf("%s: no model %q in the report", row.command, row.model)
		case m.Params != row.params:
			t.Errorf("%s: %s has %d parameters, the page says %d", row.command, row.model, m.Params, row.params)
		case math.Abs(m.TestMSE-row.testMSE) > docsTolerance*row.testMSE:
			t.Errorf("%s: %s has test MSE %.4g, the page says %g (tolerance %g%%)", row.command, row.model, m.TestMSE, row.testMSE, 100*docsTolerance)
		}
	}
}

// TestCheckedRows checks the reading of the checked table and its
// refusals.
func TestCheckedRows(t *testing.T) {
	page := "text\n<!-- checked: begin -->\n| command | model | parameters | test MSE |\n|---|---|---|---|\n" +
		"| `machines experiment sine -seed 2 -quick` | kernel ridge | 100 | 0.0978 |\n<!-- checked: end -->\nmore"
	rows, err := checkedRows(page)
	want := checkedRow{"machines experiment sine -seed 2 -quick", "kernel ridge", 100, 0.0978}
	if err != nil || len(rows) != 1 || rows[0] != want {
		t.Fatalf("rows %+v, %v; want %+v", rows, err, want)
	}
	name, c, err := parseCommand(rows[0].command, "out")
	if err != nil || name != "sine" || c.Seed != 2 || !c.Quick {
		t.Errorf("parsed %q, %+v, %v", name, c, err)
	}
	for _, bad := range []string{
		"no markers",
		strings.Replace(page, "| 100 |", "| many |", 1),
		strings.Replace(page, "0.0978 |", "0.0978 | extra |", 1),
	} {
		if _, err := checkedRows(bad); err == nil {
			t.Errorf("page %q read without an error", bad)
		}
	}
	if _, _, err := parseCommand("machines experiment sine -draws 3", "out"); err == nil {
		t.Error("a flag the check does not run was accepted")
	}
}
