#!/bin/sh
# Rebuild the second hold-out panel in this folder (as root): installs the Debian R data packages
# and runs build.R. pdspeech.csv and ames.csv (4.5 MB together) are not kept in the repository.
set -e
cd "$(dirname "$0")"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core r-cran-jsonlite \
  r-cran-dslabs r-cran-hsaur3 r-cran-modeldata r-cran-palmerpenguins r-cran-vcd r-cran-emdbook \
  r-cran-lme4 r-cran-nlme r-cran-ade4 r-cran-multcomp r-cran-plm r-cran-psych
Rscript build.R .
