package main

import (
	"flag"

	"github.com/parametric-machines/machines/kernel"
)

// learnerFlags are the flags of fit that choose how the learner searches
// for its machine; their parsing and checks live here, apart from the
// reading of the data in runFit.
type learnerFlags struct {
	family *string
}

// addLearnerFlags defines the learner's flags on fs.
func addLearnerFlags(fs *flag.FlagSet) *learnerFlags {
	return &learnerFlags{
		family: fs.String("family", kernel.AutoFamily.String(), "`family` of machines to choose from: shallow (depth one, closed form), deep (the -dims machine, L-BFGS),\nor auto: both, compared by cross-validation (deep alone when -dims, -cost or -bandwidth is given)"),
	}
}

// apply checks the flags and sets them in s.
func (lf *learnerFlags) apply(s *kernel.Settings) error {
	f, err := kernel.ParseFamily(*lf.family)
	if err != nil {
		return usagef("-family %q: want auto, shallow or deep", *lf.family)
	}
	s.Family = f
	return nil
}
