#!/usr/bin/env bash
# Starts s3proxy, a real S3 API server, on 127.0.0.1:PORT (default 9000). Every folder of STORE is a bucket and every
# file in it an object, so a checkpoint is "uploaded" by copying it there. Requests must be signed with the access
# key "local" and the secret key "local-secret". Stop it with Ctrl-C. Used by the README's S3 section.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
store=$(cd "${1:?usage: examples/s3proxy/run.sh STORE [PORT]}" && pwd)
port=${2:-9000}
mkdir -p "$here/target"
classpath=$here/target/classpath.txt
if [[ ! -s $classpath ]]; then
  mvn -q -B -f "$here/pom.xml" dependency:build-classpath -Dmdep.outputFile="$classpath"
fi
cat > "$here/target/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=local
s3proxy.credential=local-secret
jclouds.provider=filesystem
jclouds.filesystem.basedir=$store
CONF
echo "s3proxy: the folders of $store as buckets, at http://127.0.0.1:$port" >&2
exec java -Dlogback.configurationFile="$here/logback.xml" -cp "$(cat "$classpath")" org.gaul.s3proxy.Main \
  --properties "$here/target/s3proxy.conf"
