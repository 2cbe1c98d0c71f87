#!/bin/sh
# Rebuild the third hold-out panel in this folder (as root): installs the Debian R packages
# and runs build.R.
set -e
cd "$(dirname "$0")"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core r-cran-jsonlite \
  r-cran-vgam r-cran-coin r-cran-sm r-cran-brglm2 r-cran-ordinal r-cran-lavaan r-cran-spdata \
  r-cran-sandwich r-cran-lmtest r-cran-mcmcpack r-cran-sem r-cran-kmsurv r-cran-geepack r-cran-bayesm
Rscript build.R .
