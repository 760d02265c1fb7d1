#!/usr/bin/env bash
# Regenerates the TypeScript gRPC code under infrastructure/grpc/generated/ from proto/.
# The output is committed, so builds and tests never need protoc; run this (make proto) after editing a .proto.
# Reproducible: a fixed protoc (/usr/bin/protoc, or $PROTOC) and the project's pinned ts-proto plugin.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROTOC="${PROTOC:-/usr/bin/protoc}"
PLUGIN="$ROOT/node_modules/.bin/protoc-gen-ts_proto"
OUT="$ROOT/infrastructure/grpc/generated"

[ -x "$PROTOC" ] || { echo "protoc not found at $PROTOC (apt-get install protobuf-compiler, or set PROTOC)" >&2; exit 1; }
[ -x "$PLUGIN" ] || { echo "ts-proto plugin missing: $PLUGIN (install dev dependencies)" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT"

cd "$ROOT/proto"
# Sorted so the generated output does not depend on filesystem order.
mapfile -t FILES < <(find . -name '*.proto' | sed 's|^\./||' | LC_ALL=C sort)

"$PROTOC" \
  --plugin="protoc-gen-ts_proto=$PLUGIN" \
  --proto_path="$ROOT/proto" \
  --ts_proto_out="$OUT" \
  --ts_proto_opt=outputServices=grpc-js \
  --ts_proto_opt=esModuleInterop=true \
  --ts_proto_opt=env=node \
  --ts_proto_opt=useOptionals=messages \
  --ts_proto_opt=forceLong=number \
  --ts_proto_opt=oneof=unions \
  "${FILES[@]}"

echo "generated $(find "$OUT" -name '*.ts' | wc -l) files in ${OUT#$ROOT/}"
