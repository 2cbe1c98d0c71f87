#!/bin/sh
# Write the large hold-out panel's tables into this folder (as root): installs the Debian R
# data packages and runs build.R. The tables (about 11 MB) are not kept in the repository.
set -e
cd "$(dirname "$0")"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core \
  r-cran-mlbench r-cran-aer r-cran-forcats r-cran-dplyr r-cran-ggplot2
Rscript build.R .
