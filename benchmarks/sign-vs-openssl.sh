#!/usr/bin/env bash
# Times `safetensors sign` beside `openssl dgst -sha256` of the same bytes, in one hyperfine run: 8 files of
# 512 MiB (the files serialization) against openssl over them one after the other, and one 4 GiB file with
# `--shards 512MiB` against one openssl pass; random bytes, page cache warm. Needs hyperfine, openssl and a built
# checkout: `mvn -pl safetensors-cli -am package -DskipTests` first (bin/safetensors rebuilds on its own only when
# the sources of the modules it checks changed, and safetensors-signing is not one of them). Prints the load average before and after: on a shared machine, quote the
# ratio of the two sides of one run beside it, never a time alone.
# Usage: benchmarks/sign-vs-openssl.sh [WORK_DIR]   (default: a new temporary directory, deleted at the end)
set -euo pipefail
st="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin/safetensors"
work="${1:-$(mktemp -d)}"
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p files big
for i in 1 2 3 4 5 6 7 8; do
  [ -f "files/part-$i.bin" ] || head -c $((512 << 20)) /dev/urandom > "files/part-$i.bin"
done
[ -f big/model.bin ] || cat files/part-*.bin > big/model.bin
openssl ecparam -name prime256v1 -genkey -noout -out key.pem
cat files/* big/* > /dev/null   # page cache warm
"$st" --version >/dev/null
export ST="$st"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) processors"
hyperfine -w 1 -r 3 \
  -n 'openssl dgst -sha256, 8 x 512 MiB one after the other' 'openssl dgst -sha256 files/*.bin >/dev/null' \
  -n 'safetensors sign, 8 x 512 MiB (files)' '"$ST" sign files --key key.pem --out files.sig >/dev/null' \
  -n 'openssl dgst -sha256, one 4 GiB file' 'openssl dgst -sha256 big/model.bin >/dev/null' \
  -n 'safetensors sign --shards 512MiB, one 4 GiB file' '"$ST" sign big --key key.pem --shards 512MiB --out big.sig >/dev/null'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
