#!/bin/sh
# Rebuild the fourth hold-out panel in this folder (as root): installs the Debian R packages
# and runs build.R.
set -e
cd "$(dirname "$0")"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends r-base-core r-cran-jsonlite \
  r-cran-lattice r-cran-cluster r-cran-learnbayes r-cran-locfit r-cran-factominer r-cran-emmeans \
  r-cran-lasso2 r-cran-proc r-cran-gnm r-cran-amelia r-cran-ape r-cran-cmstatr r-cran-randomforest \
  r-cran-ipred r-cran-gstat r-cran-sp r-cran-sampling r-cran-psychotools r-cran-mi r-cran-publish \
  r-cran-flexmix r-cran-cutpointr r-cran-glmmtmb r-cran-lmertest r-cran-sjmisc r-cran-ks
Rscript build.R .
