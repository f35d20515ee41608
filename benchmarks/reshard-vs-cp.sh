#!/usr/bin/env bash
# Times a local `safetensors reshard` of a 1 GiB checkpoint (16 F32 tensors of 64 MiB, random bytes) beside `cp` of
# the same bytes, in one hyperfine run. Needs hyperfine, python3 and a built checkout (bin/safetensors builds it).
# Usage: benchmarks/reshard-vs-cp.sh [WORK_DIR]   (default: a new temporary directory, deleted at the end)
set -euo pipefail
st="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin/safetensors"
work="${1:-$(mktemp -d)}"
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$work"
python3 - <<'PY'
import json, os, struct
n, size = 16, 64 << 20
header, off = {"__metadata__": {"format": "pt"}}, 0
for i in range(n):
    header[f"layers.{i}.weight"] = {"dtype": "F32", "shape": [size // 4], "data_offsets": [off, off + size]}
    off += size
h = json.dumps(header, separators=(",", ":")).encode()
h += b" " * ((8 - len(h) % 8) % 8)
with open("ckpt.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    for _ in range(n):
        f.write(os.urandom(size))
PY
"$st" --version >/dev/null
export ST="$st"
hyperfine -w 1 -r 5 \
  -n 'cp' 'cp ckpt.safetensors copy.bin' \
  -n 'cp + fsync' 'cp ckpt.safetensors copy.bin && sync copy.bin' \
  -n 'cp + fsync + sha256sum of both' 'cp ckpt.safetensors copy.bin && sync copy.bin && sha256sum ckpt.safetensors copy.bin >/dev/null' \
  -n 'reshard --max-shard-size 600MB (2 shards)' '"$ST" reshard ckpt.safetensors --out out --max-shard-size 600MB --force >/dev/null' \
  -n 'reshard --single' '"$ST" reshard ckpt.safetensors --out single --single --force >/dev/null'
