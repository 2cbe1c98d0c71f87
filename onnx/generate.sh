#!/usr/bin/env bash
# Regenerates onnxpb/onnx.pb.go from the official onnx.proto.
#
# It needs protoc (Debian: protobuf-compiler) and protoc-gen-go at the
# version of google.golang.org/protobuf in go.mod, which it installs.
# onnx.proto comes from Debian's python3-onnx, or from the file named by
# $ONNX_PROTO; a copy is kept in onnxpb/ so that the generated code can be
# traced to the exact messages it was made from.
set -euo pipefail
cd "$(dirname "$0")"

proto=${ONNX_PROTO:-$(dpkg -L python3-onnx 2>/dev/null | grep '/onnx/onnx\.proto$' || true)}
if [ -z "$proto" ] || [ ! -f "$proto" ]; then
  echo "generate.sh: no onnx.proto: apt-get install python3-onnx, or set ONNX_PROTO" >&2
  exit 1
fi
version=$(go list -m -f '{{.Version}}' google.golang.org/protobuf)
GOBIN="$PWD/.bin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$version"
trap 'rm -rf .bin' EXIT

cp "$proto" onnxpb/onnx.proto
protoc --plugin=protoc-gen-go=.bin/protoc-gen-go \
  --proto_path=onnxpb --go_out=onnxpb --go_opt=paths=source_relative \
  --go_opt=Monnx.proto=github.com/parametric-machines/machines/onnx/onnxpb \
  onnx.proto
