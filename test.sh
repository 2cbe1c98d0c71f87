#!/bin/sh
# The tests of the repository's two modules, the core's and beam/'s (its
# own module, so that the core does not depend on Apache Beam), with the
# flags given to go test, such as -short.
set -e
cd "$(dirname "$0")"
go test "$@" ./...
cd beam
go test "$@" ./...
