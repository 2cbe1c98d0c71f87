package main

import (
	"flag"
	"strconv"
	"testing"

	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/sculpt"
	"github.com/parametric-machines/machines/train"
)

// TestFlagDefaults pins the defaults of the flags that stand for a
// library configuration's zero fields to the library's constants, so
// that the command and a program using the library train alike.
func TestFlagDefaults(t *testing.T) {
	sculptFlags := flag.NewFlagSet("sculpt", flag.ContinueOnError)
	addSculptFlags(sculptFlags)
	for _, c := range []struct {
		fs         *flag.FlagSet
		name, want string
	}{
		{sculptFlags, "nodes", strconv.Itoa(sculpt.DefaultNodes)},
		{sculptFlags, "channels", strconv.Itoa(sculpt.DefaultChannels)},
		{sculptFlags, "tol", strconv.FormatFloat(sculpt.DefaultTol, 'g', -1, 64)},
		{sculptFlags, "lambda", strconv.FormatFloat(sculpt.DefaultLambda, 'g', -1, 64)},
		{sculptFlags, "tolerance", strconv.FormatFloat(sculpt.DefaultPathTolerance, 'g', -1, 64)},
		{sculptFlags, "batch", strconv.Itoa(train.DefaultBatch)},
		{sculptFlags, "lr", strconv.FormatFloat(optim.DefaultAdamLR, 'g', -1, 64)},
	} {
		if got := c.fs.Lookup(c.name).DefValue; got != c.want {
			t.Errorf("%s -%s defaults to %s, the library to %s", c.fs.Name(), c.name, got, c.want)
		}
	}
}
