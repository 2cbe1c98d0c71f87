#!/bin/sh
# Rebuild the fifth hold-out panel in this folder (as root): installs the Debian R packages
# and runs build.R.
set -e
cd "$(dirname "$0")"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core r-cran-jsonlite \
  r-cran-sfsmisc r-cran-multilevel r-cran-vegan r-cran-ecodist r-cran-labdsv r-cran-fpc r-cran-psyphy \
  r-cran-bayesfactor r-cran-metadat r-cran-afex r-cran-ggeffects r-cran-rstanarm r-cran-ddalpha \
  r-cran-haplo.stats r-cran-survminer r-cran-beeswarm r-cran-pec r-cran-timereg r-cran-etm r-cran-ca \
  r-cran-epir r-cran-relsurv
Rscript build.R .
