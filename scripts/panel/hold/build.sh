#!/bin/sh
# Rebuild the hold-out panel in this folder (as root): installs the Debian R data packages
# and runs build.R.
set -e
cd "$(dirname "$0")"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core r-cran-jsonlite \
  r-cran-mlbench r-cran-mass r-cran-cardata r-cran-aer
Rscript build.R .
